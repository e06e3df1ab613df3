import type { ScraperListing } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { scraperList } from './scraper-list.js';
import { plural } from './text.js';

export interface HomePageModel {
  listings: ScraperListing[];
  /** The search text, when the visitor searched. */
  search: string;
  /** The list was cut at this many scrapers. */
  limit: number;
  visitor?: Visitor;
}

/** `/`: every public scraper, most downloaded and most recently updated first, with a search box. */
export function homePage({ listings, search, limit, visitor }: HomePageModel): SafeHtml {
  return layout({
    visitor,
    title: search ? `Scrapers matching “${search}”` : 'Public scrapers',
    body: html`<h1>Public scrapers</h1>
<p class="lead">Query any of them with SQL and get the rows as JSON, CSV, NDJSON, an Atom feed, or the whole SQLite database. <a href="/docs">How the API works</a>.</p>
<form class="search" method="get" action="/" role="search">
  <label for="q">Search by owner, name or description</label>
  <div class="search-row">
    <input id="q" name="q" type="search" value="${search}" maxlength="200">
    <button type="submit">Search</button>
  </div>
</form>
${search ? html`<p class="muted">${plural(listings.length, 'scraper')} matching “${search}”${listings.length >= limit ? ` (the first ${limit})` : ''}. <a href="/">Show all</a></p>` : ''}
${scraperList(listings, search ? 'No public scraper matches that.' : 'No public scrapers yet.')}`,
  });
}
