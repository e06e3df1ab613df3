import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';

/** The page for an unknown owner, an unknown scraper or a private one (told apart from none). */
export function notFoundPage(what: string, visitor?: Visitor): SafeHtml {
  return layout({
    visitor,
    title: 'Not found',
    body: html`<h1>Not found</h1>
<p>There is no ${what} here.</p>
<p><a href="/">See the public scrapers</a></p>`,
  });
}
