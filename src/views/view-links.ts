import type { Cell, Filter, TableView } from '../browse/types.js';

/**
 * @module Changed copies of a table view, from which every link of a table page is built (sort by a
 * column, add or remove a filter, a facet, a column). Every change but turning the page drops `next`:
 * a token belongs to the view it was made for.
 */

/** The view's first page. */
export function firstPage(view: TableView): TableView {
  return { ...view, next: undefined };
}

/** Sorted by `column` alone: ascending, or descending when it is already the first key ascending. */
export function sortedBy(view: TableView, column: string): TableView {
  const first = view.sort[0];
  const desc = first?.column === column && !first.desc;
  return { ...firstPage(view), sort: [{ column, desc }] };
}

/** The filter that a facet value selects: equality, or `isnull` for NULL. */
export function facetFilter(column: string, value: Cell): Filter {
  return value.kind === 'null' ? { column, op: 'isnull', value: '' } : { column, op: 'exact', value: value.text };
}

function sameFilter(a: Filter, b: Filter): boolean {
  return a.column === b.column && a.op === b.op && a.value === b.value;
}

/** The view with the filter added, or removed when it is there (a facet value's toggle). */
export function toggledFilter(view: TableView, filter: Filter): TableView {
  const present = view.filters.some((f) => sameFilter(f, filter));
  const filters = present ? view.filters.filter((f) => !sameFilter(f, filter)) : [...view.filters, filter];
  return { ...firstPage(view), filters };
}

/** The view without its filter number `index`. */
export function withoutFilter(view: TableView, index: number): TableView {
  return { ...firstPage(view), filters: view.filters.filter((_, i) => i !== index) };
}

/** The view with a facet on `column` added, or removed when it is there. */
export function toggledFacet(view: TableView, column: string): TableView {
  const facets = view.facets.includes(column) ? view.facets.filter((c) => c !== column) : [...view.facets, column];
  return { ...view, facets };
}

/** The view with more values of each facet. */
export function withFacetSize(view: TableView, facetSize: number): TableView {
  return { ...view, facetSize };
}

/** The view without a search. */
export function withoutSearch(view: TableView): TableView {
  return { ...firstPage(view), search: undefined };
}

/** The plainest view of the table: all its columns, no filter, sort, search or facet. */
export function plainView(view: TableView, allColumns: string[]): TableView {
  return { ...firstPage(view), sort: [], filters: [], columns: allColumns, search: undefined, facets: [] };
}
