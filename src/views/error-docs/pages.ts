import type { pageErrors } from '../../errors/pages.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/pages.ts. */
export const pagesErrorDocs: ErrorDocs<typeof pageErrors> = {
  viewColumn: {
    example: ['_sort', 'no_such_column', 'data'],
    area: 'query',
    when: "a table page's `_sort`, `_sort_desc`, `_col`, `_nocol`, `_facet` or filter names a column the table does not have",
  },
  viewOperator: {
    example: ['suburb__near', ['exact', 'not', '…']],
    area: 'query',
    when: "a table page's filter `COLUMN__OPERATOR=VALUE` with an operator there is none of",
  },
  viewValue: {
    example: ['_size', 'a whole number from 1 to 1000, or max'],
    area: 'query',
    when: "a table page's parameter with a value it cannot take: `_size`, `_facet_size`, `_count`, a `date` or `in` filter's value, or more sorts, filters or facets than a view may have",
  },
  viewSearch: { example: ['data'], area: 'query', when: '`_search` on a table that has no full-text index' },
  viewTooLarge: {
    example: [32],
    area: 'query',
    when: "a table page's, row page's or saved query page's rows hold more than can be sent in one answer",
  },
  pageTokenInvalid: {
    example: [[]],
    area: 'query',
    when: "a table page's `_next` token, or the data API's `next`, was altered, or was given out for another sort, filter or search of the table (another query or `page_size`), or `next` came without `page_size`",
  },
  pageTokenStale: {
    example: [[]],
    area: 'query',
    when: "a table page's `_next` token, or the data API's `next`, was given out for an older version of the scraper's data: start again from the first page",
  },
};
