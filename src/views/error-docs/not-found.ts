import { formatNames } from '../../formats/index.js';
import type { notFoundErrors } from '../../errors/not-found.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/not-found.ts. */
export const notFoundErrorDocs: ErrorDocs<typeof notFoundErrors> = {
  scraperNotFound: {
    example: ['alice/no-such-scraper'],
    area: 'query',
    when: "no such scraper, or a private one asked for by anyone but its owner (with another account's key; on the web, by anyone not signed in as the owner): the same answer, so existence is not revealed",
  },
  savedQueryNotFound: {
    example: ['demo/planning-applications', 'by-suburb'],
    area: 'query',
    when: "the scraper has no saved query of that name, or it is private and the caller is not the scraper's owner",
  },
  formatUnknown: { example: [formatNames], area: 'query', when: '`data.<format>` is not one of the [formats](#formats)' },
  tableNotFound: {
    example: ['no such table'],
    area: 'query',
    when: 'a table page or twin (`/{owner}/{scraper}/tables/{table}`, `.json`, `.csv`) names no table or view of the scraper (names are [tilde-encoded](pages.md#table-names-in-addresses))',
  },
  rowNotFound: {
    example: ['data', '12'],
    area: 'query',
    when: 'a row page or its `.json` names a rowid the table does not hold, or is a view (views have no row pages)',
  },
  routeNotFound: { example: [], area: 'query', when: 'any other path' },
};
