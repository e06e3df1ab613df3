/**
 * A table page's view as its URL states it (Datasette's parameter names). Every column a parameter
 * names is checked against the table, every operator against the list, every value's form where it
 * has one: whatever else the URL holds, only names of the table's columns ever reach the SQL, quoted,
 * and filter values are bound as data (compile.ts).
 */
import { errors } from '../errors.js';
import { parseVersionId } from '../scrapers/version-id.js';
import type { TableInfo } from '../store/types.js';
import { checkFilterValue, filterOps, isFilterOp, valuelessOps } from './filters.js';
import { decodeToken, viewIdentity } from './page-token.js';
import type { Filter, FilterOp, QueryParams, SortKey, TableView } from './types.js';
import { viewParams } from './view-params.js';
import { defaultFacetSize, defaultPageSize, maxFacets, maxFacetSize, maxFilters, maxPageSize, maxSortKeys } from './view-bounds.js';

/**
 * The filter a parameter name states. `COL__OP` is operator OP on column COL when COL is a column
 * and OP an operator; otherwise a name that is a column is an exact filter on it. So a column
 * literally named `a__gt` is filtered as `a__gt=V` (unless the table also has a column `a`, when
 * that means `a > V`) and always as `a__gt__exact=V`.
 */
export function filterTarget(name: string, columns: ReadonlySet<string>): { column: string; op: FilterOp } | undefined {
  const split = name.lastIndexOf('__');
  if (split > 0) {
    const [column, op] = [name.slice(0, split), name.slice(split + 2)];
    if (isFilterOp(op) && columns.has(column)) return { column, op };
  }
  return columns.has(name) ? { column: name, op: 'exact' } : undefined;
}

function pairsOf(query: QueryParams | Iterable<[string, string]>): [string, string][] {
  if (Symbol.iterator in query) return [...(query as Iterable<[string, string]>)];
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(query as QueryParams)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) pairs.push([name, one]);
  }
  return pairs;
}

function wholeNumber(name: string, value: string, max: number): number {
  if (value === 'max') return max;
  const n = /^\d{1,7}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > max) throw errors.viewValue(name, `a whole number from 1 to ${max}, or max`);
  return n;
}

export function parseView(query: QueryParams | Iterable<[string, string]>, table: TableInfo): TableView {
  const names = new Set(table.columns.map((c) => c.name));
  const column = (parameter: string, name: string) => {
    if (!names.has(name)) throw errors.viewColumn(parameter, name, table.name);
    return name;
  };
  const sort: SortKey[] = [];
  const filters: Filter[] = [];
  const shown: string[] = [];
  const hidden: string[] = [];
  const facets: string[] = [];
  const view: TableView = { sort, filters, columns: [], size: defaultPageSize, facets, facetSize: defaultFacetSize };
  for (const [name, value] of pairsOf(query)) {
    switch (name) {
      case '_sort':
      case '_sort_desc':
        column(name, value);
        if (!sort.some((s) => s.column === value)) sort.push({ column: value, desc: name === '_sort_desc' });
        if (sort.length > maxSortKeys) throw errors.viewValue(name, `given ${maxSortKeys} times at most`);
        break;
      case '_col':
        shown.push(column(name, value));
        break;
      case '_nocol':
        hidden.push(column(name, value));
        break;
      case '_size':
        view.size = wholeNumber(name, value, maxPageSize);
        break;
      case '_facet_size':
        view.facetSize = wholeNumber(name, value, maxFacetSize);
        break;
      case '_facet':
        if (!facets.includes(column(name, value))) facets.push(value);
        if (facets.length > maxFacets) throw errors.viewValue(name, `given ${maxFacets} times at most`);
        break;
      case '_search':
        if (value.trim() === '') break;
        if (!table.fts) throw errors.viewSearch(table.name);
        view.search = value;
        break;
      case '_next':
        if (value !== '') view.next = value;
        break;
      case 'version':
        view.version = parseVersionId(value);
        break;
      case '_count':
        if (value !== 'all') throw errors.viewValue(name, 'all');
        view.countAll = true;
        break;
      default: {
        const target = filterTarget(name, names);
        if (target) {
          const filter = { ...target, value: valuelessOps.has(target.op) ? '' : value };
          checkFilterValue(filter);
          if (filters.push(filter) > maxFilters) throw errors.viewValue(name, `one of ${maxFilters} filters at most`);
        } else if (!name.startsWith('_')) {
          // Other parameters starting with _ are Datasette's (_shape, _extra…) or a program's: not a column, ignored.
          const split = name.lastIndexOf('__');
          if (split > 0 && names.has(name.slice(0, split))) throw errors.viewOperator(name, filterOps);
          throw errors.viewColumn('A filter', name, table.name);
        }
      }
    }
  }
  view.columns = table.columns.map((c) => c.name).filter((c) => (shown.length === 0 || shown.includes(c)) && !hidden.includes(c));
  if (view.columns.length === 0) throw errors.viewValue('_col', 'at least one column of the table, not all of them hidden by _nocol');
  if (view.next !== undefined) {
    // Refused here, before any query, if it was not given out for this view; its data version is checked as the page runs.
    const first = () => viewParams({ ...view, next: undefined }, table);
    decodeToken(view.next, viewIdentity(table.name, view), sort.length, first);
  }
  return view;
}
