import type { ScraperListing } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { scraperList } from './scraper-list.js';
import { plural } from './text.js';

/**
 * `/{owner}`: an owner's public scrapers; their private ones too when the owner is the visitor
 * (`withPrivate`), marked, and never for anyone else.
 */
export function ownerPage(owner: string, listings: ScraperListing[], visitor?: Visitor, withPrivate = false): SafeHtml {
  return layout({
    title: owner,
    visitor,
    body: html`<h1>${owner}</h1>
<p class="muted">${withPrivate ? `${plural(listings.length, 'scraper')}, private ones included (only you see those)` : plural(listings.length, 'public scraper')}</p>
${scraperList(listings, `${owner} has no ${withPrivate ? '' : 'public '}scrapers.`)}`,
  });
}
