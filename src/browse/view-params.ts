import type { TableInfo } from '../store/types.js';
import { filterOps, valuelessOps } from './filters.js';
import { defaultFacetSize, defaultPageSize, reservedNames } from './view-bounds.js';
import type { TableView } from './types.js';

/** Column names a plain `NAME=V` would not read as an exact filter on them. */
const endsInOperator = new RegExp(`__(${filterOps.join('|')})$`);
const plainName = (column: string) => !reservedNames.has(column) && !endsInOperator.test(column);

/**
 * The canonical URL parameters of a view, in a fixed order (sort, filters, columns, search, facets,
 * sizes, count, version, next), defaults left out; `parseView` reads them back to the same view. The shown
 * columns are written as whichever of `_col` and `_nocol` is shorter.
 */
export function viewParams(view: TableView, table: TableInfo): [string, string][] {
  const params: [string, string][] = view.sort.map((s) => [s.desc ? '_sort_desc' : '_sort', s.column]);
  for (const { column, op, value } of view.filters) {
    if (op === 'exact' && plainName(column)) params.push([column, value]);
    else params.push([`${column}__${op}`, valuelessOps.has(op) ? '1' : value]);
  }
  const all = table.columns.map((c) => c.name);
  const hidden = all.filter((c) => !view.columns.includes(c));
  if (hidden.length > 0) {
    if (hidden.length <= view.columns.length) for (const c of hidden) params.push(['_nocol', c]);
    else for (const c of view.columns) params.push(['_col', c]);
  }
  if (view.search !== undefined) params.push(['_search', view.search]);
  for (const facet of view.facets) params.push(['_facet', facet]);
  if (view.facetSize !== defaultFacetSize) params.push(['_facet_size', String(view.facetSize)]);
  if (view.size !== defaultPageSize) params.push(['_size', String(view.size)]);
  if (view.countAll) params.push(['_count', 'all']);
  if (view.version !== undefined) params.push(['version', String(view.version)]);
  if (view.next !== undefined) params.push(['_next', view.next]);
  return params;
}
