import { make } from './siphon-error.js';

/**
 * What is asked for and does not exist (404). A private scraper gets the unknown-scraper answer, so
 * its existence is not revealed.
 */
export const notFoundErrors = {
  scraperNotFound: (fullName: string) => make('SIPHON_ERR_SCRAPER_NOT_FOUND', 404, `can't find scraper ${fullName}`),
  savedQueryNotFound: (fullName: string, name: string) =>
    make('SIPHON_ERR_SAVED_QUERY_NOT_FOUND', 404, `Scraper ${fullName} has no saved query named ${JSON.stringify(name.slice(0, 100))}.`),
  formatUnknown: (supported: readonly string[]) =>
    make('SIPHON_ERR_FORMAT_UNKNOWN', 404, `Unknown format. Use data.<format> with one of: ${supported.join(', ')}.`),
  // The table pages and their twins (/{owner}/{scraper}/tables/…): the name is echoed, to a bound.
  tableNotFound: (name: string) =>
    make('SIPHON_ERR_TABLE_NOT_FOUND', 404, `This scraper has no table or view named ${JSON.stringify(name.slice(0, 200))}.`),
  rowNotFound: (table: string, rowid: string) =>
    make(
      'SIPHON_ERR_ROW_NOT_FOUND',
      404,
      `The table ${JSON.stringify(table.slice(0, 200))} has no row with rowid ${JSON.stringify(rowid.slice(0, 40))} (views have no row pages).`,
    ),
  routeNotFound: () =>
    make('SIPHON_ERR_NOT_FOUND', 404, 'Not found. Data lives at /<owner>/<scraper>/data.<format>?key=<key>&query=<sql>.'),
} as const;
