/**
 * The browsing engine's interface to the web pages and their data twins (issue 34): a table's view
 * as the URL states it, and a page of it. The engine (src/browse/) knows no HTTP: it throws the
 * domain errors of src/errors.ts, which the HTTP layer answers in Siphon's error shape.
 */
import type { Cell } from './cells.js';
import type { FtsInfo } from '../store/types.js';

export type { Cell, FtsInfo };

export type FilterOp =
  | 'exact'
  | 'not'
  | 'contains'
  | 'notcontains'
  | 'startswith'
  | 'endswith'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'like'
  | 'notlike'
  | 'glob'
  | 'in'
  | 'notin'
  | 'isnull'
  | 'notnull'
  | 'isblank'
  | 'notblank'
  | 'date';

/** `value`: '' for isnull/notnull/isblank/notblank; the raw text (comma-separated or a JSON array) for in/notin. */
export interface Filter {
  column: string;
  op: FilterOp;
  value: string;
}

export interface SortKey {
  column: string;
  desc: boolean;
}

export interface TableView {
  /** `_sort` / `_sort_desc`, in URL order. */
  sort: SortKey[];
  /** `COL=V`, `COL__OP=V`, in URL order. */
  filters: Filter[];
  /** The shown columns, in the table's order (`_col` / `_nocol` applied). */
  columns: string[];
  /** `_size`, 1..1000, default 100. */
  size: number;
  /** `_search`, only where the table has a full-text index. */
  search?: string;
  /** `_next`, opaque. */
  next?: string;
  /** `version`, the data version the view is pinned to (src/scrapers/version-id.ts); absent: the current data. */
  version?: number;
  /** `_facet`, repeatable. */
  facets: string[];
  /** `_facet_size`, 1..100, default 30. */
  facetSize: number;
  /** `_count=all`: count every match, with the query time limit, rather than within the count's budget. */
  countAll?: boolean;
}

export interface FacetValue {
  value: Cell;
  count: number;
  /** The value is one of the view's `exact` filters on this column. */
  selected: boolean;
}

export interface FacetResult {
  values: FacetValue[];
  /** More distinct values than `facetSize`. */
  truncated: boolean;
  /** The page's facet budget ran out before this facet was done: `values` is empty. */
  timedOut: boolean;
}

export interface BrowsePage {
  columns: string[];
  /** `rowid` null for a view (no row pages for views). */
  rows: { rowid: string | null; cells: Cell[] }[];
  /** Exact unless `countTruncated` (then a lower bound: "more than N"). */
  count: number;
  countTruncated: boolean;
  /** The token of the next page; null on the last. */
  next: string | null;
  /** "312 rows where suburb = Katoomba, sorted by date descending". */
  description: string;
  facets: Record<string, FacetResult>;
  suggestedFacets: string[];
  /** The page's own rows query ran past its time limit: the page says so and suggests a narrower view. */
  timedOut: boolean;
}

/**
 * What a URL's query string parses into (Fastify's parsed query). parseView also takes the pairs in
 * URL order (better: a record groups values by name, so `_sort=a&_sort_desc=b&_sort=c` sorts by a,
 * c, then b).
 */
export type QueryParams = Record<string, string | string[] | undefined>;
