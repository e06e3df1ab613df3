/** The browsing engine (issue 34): table views as URLs state them, their pages, counts, facets and rows. */
export { browseTable, fetchRow, type BrowseOptions } from './browse-table.js';
export { tableCount } from './counts.js';
export { exportStatement } from './compile.js';
export { parseView } from './parse-view.js';
export { viewParams } from './view-params.js';
export * from './types.js';
