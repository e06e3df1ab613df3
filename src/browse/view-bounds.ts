/** A table page's defaults and bounds, and the parameter names its view reads itself. */
export const defaultPageSize = 100;
export const maxPageSize = 1000;
export const defaultFacetSize = 30;
export const maxFacetSize = 100;
/** Bounds on one view: each sort key adds to every page's keyset condition, each facet is a query. */
export const maxSortKeys = 10;
export const maxFilters = 50;
export const maxFacets = 10;

/** The parameters a view reads itself; a column named so is filtered as `NAME__exact=V`. */
export const reservedNames = new Set([
  '_sort',
  '_sort_desc',
  '_col',
  '_nocol',
  '_size',
  '_search',
  '_next',
  '_facet',
  '_facet_size',
  '_count',
  // Not Datasette's, but the data API's and every data address's: a filter on a column named version is `version__exact`.
  'version',
]);
