import type { ScraperListing } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { humanSize, ownerPath, plural, scraperPath, timeElement } from './text.js';

/** The list of scrapers on the home and owner pages: name, description, downloads, size, last change. */
export function scraperList(listings: ScraperListing[], empty: string): SafeHtml {
  if (listings.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<ul class="scrapers">
${listings.map(
  ({ scraper, downloads }) => html`<li>
  <h3><a href="${ownerPath(scraper.owner.name)}">${scraper.owner.name}</a> / <a href="${scraperPath(scraper.owner.name, scraper.name)}">${scraper.name}</a>${scraper.isPrivate ? html` <span class="private-badge">private</span>` : ''}</h3>
  ${scraper.description ? html`<p>${scraper.description}</p>` : ''}
  <p class="meta"><span>Downloaded ${plural(downloads, 'time')}</span> <span>${humanSize(scraper.data.sizeBytes)}</span> <span>Updated ${timeElement(scraper.data.updatedAt)}</span></p>
</li>
`,
)}</ul>`;
}
