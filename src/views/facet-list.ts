import type { BrowsePage, FacetResult, TableView } from '../browse/types.js';
import { html, type SafeHtml } from './html.js';
import { count } from './text.js';
import { facetFilter, toggledFacet, toggledFilter, withFacetSize } from './view-links.js';

/** The address of a changed view of the same table. */
export type ViewHref = (view: TableView) => string;

/** How many values "show more" asks for, at most (the engine's bound on `_facet_size`). */
const maxFacetSize = 100;

function facetValues(view: TableView, column: string, facet: FacetResult, href: ViewHref): SafeHtml {
  if (facet.timedOut) {
    return html`<p class="facet-timeout">This facet did not finish within the page's time for facets. It is still being counted: load the page again in a while to see it, or narrow the view (add a filter).</p>`;
  }
  if (facet.values.length === 0) return html`<p class="empty">No values.</p>`;
  const more =
    facet.truncated && view.facetSize < maxFacetSize
      ? html`<p><a href="${href(withFacetSize(view, Math.min(maxFacetSize, view.facetSize * 2)))}">Show more values</a></p>`
      : facet.truncated
        ? html`<p class="hint">Only the ${count(view.facetSize)} most frequent values are shown.</p>`
        : '';
  return html`<ul class="facet-values">
${facet.values.map((v) => {
  const label =
    v.value.kind === 'null'
      ? html`<span class="null">null</span>`
      : v.value.text === ''
        ? html`<span class="empty-text">(empty text)</span>`
        : v.value.text;
  // A cut value cannot be filtered by from here: its link would hold only its start.
  if (v.value.kind !== 'null' && v.value.cut) {
    return html`<li class="cut">${label}<span class="cut-mark">…</span> <span class="count">${count(v.count)}</span></li>\n`;
  }
  const title = v.selected ? 'Remove this filter' : 'Keep only the rows with this value';
  return html`<li${v.selected ? html` class="selected"` : ''}><a href="${href(toggledFilter(view, facetFilter(column, v.value)))}" title="${title}"${v.selected ? html` aria-current="true"` : ''}>${v.selected ? html`<span class="tick" aria-hidden="true">✓ </span>` : ''}${label}</a> <span class="count">${count(v.count)}</span></li>\n`;
})}</ul>
${more}`;
}

/** The page's facets, each value a link that adds or removes its filter; then the suggested ones. */
export function facetList(view: TableView, page: BrowsePage, href: ViewHref): SafeHtml | '' {
  const shown = view.facets.filter((c) => page.facets[c]);
  if (shown.length === 0 && page.suggestedFacets.length === 0) return '';
  return html`<section class="facets" aria-labelledby="facets">
<h2 id="facets">Facets</h2>
${shown.map(
  (column) => html`<section class="facet">
<h3>${column} <a class="remove" href="${href(toggledFacet(view, column))}" aria-label="Remove the facet on ${column}" title="Remove this facet">×</a></h3>
${facetValues(view, column, page.facets[column]!, href)}
</section>\n`,
)}
${
  page.suggestedFacets.length > 0
    ? html`<p class="suggested">Suggested facets: ${page.suggestedFacets.map((c, i) => html`${i > 0 ? ', ' : ''}<a href="${href(toggledFacet(view, c))}">${c}</a>`)}</p>`
    : ''
}
</section>`;
}
