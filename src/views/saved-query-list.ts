import { namedParamNames } from '../sql/named-params.js';
import type { SavedQuery, Scraper } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { savedQueryPath } from './text.js';

/** One saved query: its title linked to its page, marked when private, its description's first line, its parameters. */
function savedQueryItem(scraper: Scraper, query: SavedQuery): SafeHtml {
  const [summary = ''] = query.description.split('\n');
  const params = namedParamNames(query.sql);
  return html`<li><a href="${savedQueryPath(scraper.owner.name, scraper.name, query.name)}">${query.title}</a>${
    query.isPrivate ? html` <span class="private-badge">private</span>` : ''
  }${summary ? html` <span class="summary">${summary}</span>` : ''}${
    params.length > 0 ? html` <span class="hint">(${params.map((p, i) => html`${i === 0 ? '' : ', '}<code>:${p}</code>`)})</span>` : ''
  }</li>\n`;
}

/**
 * The scraper page's saved queries (the list the visitor may see: private ones for the owner only);
 * none: no section, but for the owner a line on how to save one.
 */
export function savedQueriesSection(scraper: Scraper, queries: readonly SavedQuery[], own: boolean): SafeHtml | '' {
  if (queries.length === 0 && !own) return '';
  return html`<section class="saved-queries" aria-labelledby="queries">
<h2 id="queries">Saved queries</h2>
${
  queries.length === 0
    ? html`<p class="hint">None yet: save one with <strong>Save this query</strong> in the query builder below, or with <code>bin/siphon query save</code>.</p>`
    : html`<ul class="saved-query-list">
${queries.map((q) => savedQueryItem(scraper, q))}</ul>`
}
</section>`;
}
