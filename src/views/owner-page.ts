import type { ScraperListing } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import { scraperList } from './scraper-list.js';
import { plural } from './text.js';

/** `/{owner}`: an owner's public scrapers (private ones are never listed). */
export function ownerPage(owner: string, listings: ScraperListing[]): SafeHtml {
  return layout({
    title: owner,
    body: html`<h1>${owner}</h1>
<p class="muted">${plural(listings.length, 'public scraper')}</p>
${scraperList(listings, `${owner} has no public scrapers.`)}`,
  });
}
