import { make } from './siphon-error.js';

/**
 * A table page's view (sort, filters, columns, paging: src/browse/) and its paging tokens. Names are
 * echoed (cut short), values never.
 */
export const pageErrors = {
  viewColumn: (parameter: string, column: string, table: string) =>
    make(
      'SIPHON_ERR_VIEW_COLUMN',
      400,
      `${parameter} names ${JSON.stringify(column.slice(0, 100))}, which is not a column of ${JSON.stringify(table.slice(0, 100))}. Filter a column as COLUMN=VALUE or COLUMN__OPERATOR=VALUE.`,
    ),
  viewOperator: (parameter: string, operators: readonly string[]) =>
    make(
      'SIPHON_ERR_VIEW_OPERATOR',
      400,
      `${JSON.stringify(parameter.slice(0, 100))} ends in an operator there is none of: use one of ${operators.join(', ')}.`,
    ),
  viewValue: (parameter: string, expected: string) =>
    make('SIPHON_ERR_VIEW_VALUE', 400, `The value of ${JSON.stringify(parameter.slice(0, 100))} must be ${expected}.`),
  viewSearch: (table: string) =>
    make(
      'SIPHON_ERR_VIEW_SEARCH',
      400,
      `${JSON.stringify(table.slice(0, 100))} has no full-text index, so _search cannot be used on it. Use a filter such as COLUMN__contains=TEXT.`,
    ),
  viewTooLarge: (maxMb: number) =>
    make(
      'SIPHON_ERR_VIEW_TOO_LARGE',
      400,
      `The rows asked for hold more than ${maxMb} MB. On a table page, ask for fewer rows (_size) or columns (_col, _nocol); the data API (or a saved query's data URLs) gives every row.`,
    ),
  /** `firstPage`: the parameters of the same view's first page, for a link to it. */
  pageTokenInvalid: (firstPage: [string, string][]) =>
    Object.assign(
      make(
        'SIPHON_ERR_PAGE_TOKEN_INVALID',
        400,
        "The page token (a table page's _next, the data API's next) is not one this view or query gave out: it was changed, or belongs to another sort, filter, search, query or page size. Start again from the first page.",
      ),
      { firstPage },
    ),
  pageTokenStale: (firstPage: [string, string][]) =>
    Object.assign(
      make(
        'SIPHON_ERR_PAGE_TOKEN_STALE',
        409,
        "The page token (a table page's _next, the data API's next) is for an older version of this scraper's data, which has since been published again. Start again from the first page of the current data.",
      ),
      { firstPage },
    ),
} as const;
