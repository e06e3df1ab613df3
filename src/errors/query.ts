import { make } from './siphon-error.js';

/** What was sent to the data API that it cannot run (400), and the formats' own refusals. */
export const queryErrors = {
  queryMissing: () => make('SIPHON_ERR_QUERY_MISSING', 400, 'No query specified. Pass an SQL SELECT statement as the query parameter.'),
  queryTooLong: (maxChars: number) => make('SIPHON_ERR_QUERY_TOO_LONG', 400, `The query is longer than ${maxChars} characters.`),
  queryNul: () => make('SIPHON_ERR_QUERY_NUL', 400, 'The query contains a NUL character.'),
  queryNotRead: (firstWord?: string) =>
    make(
      'SIPHON_ERR_QUERY_NOT_READ',
      400,
      `Only a single read-only SELECT, WITH or VALUES statement can be run${firstWord ? `, not one starting with ${JSON.stringify(firstWord.slice(0, 30))}` : ''}.`,
    ),
  queryPragma: (name: string, allowed: readonly string[]) =>
    make(
      'SIPHON_ERR_QUERY_PRAGMA',
      400,
      `${JSON.stringify(name.slice(0, 40))} cannot be used: of the pragma functions (any name starting with pragma_), only those that describe the tables can: ${allowed.join(', ')}.`,
    ),
  paramMissing: (names: readonly string[]) =>
    make(
      'SIPHON_ERR_PARAM_MISSING',
      400,
      `The query uses ${names.map((n) => `:${n}`).join(', ')} but the request gives no value for ${names.length === 1 ? 'it' : 'them'}: add ${names.map((n) => `:${n}=…`).join('&')} to it.`,
    ),
  paramUnused: (names: readonly string[], used: readonly string[]) =>
    make(
      'SIPHON_ERR_PARAM_UNUSED',
      400,
      `The request gives ${names.map((n) => `:${n}`).join(', ')}, which the query does not use; it uses ${used.length === 0 ? 'no :named parameters' : used.map((n) => `:${n}`).join(', ')}.`,
    ),
  paramsTooMany: (max: number) => make('SIPHON_ERR_PARAMS_TOO_MANY', 400, `A request may give at most ${max} :named parameter values.`),
  paramsTooLong: (maxChars: number) =>
    make('SIPHON_ERR_PARAMS_TOO_LONG', 400, `The query and its :named parameter values are longer than ${maxChars} characters together.`),
  sql: (sqliteMessage: string) => make('SIPHON_ERR_SQL', 400, sqliteMessage),
  queryTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_QUERY_TIMEOUT',
      400,
      `The query ran longer than the ${seconds} s limit and was stopped. Add a LIMIT or a WHERE clause, or avoid sorting or joining large tables.`,
    ),
  queryProcessDied: () =>
    make(
      'SIPHON_ERR_QUERY_RESOURCES',
      400,
      'The query used more memory, temporary disk or other resources than a query may have and was stopped.',
    ),
  queryTempDisk: (capMb: number) =>
    make(
      'SIPHON_ERR_QUERY_RESOURCES',
      400,
      `The query's temporary files (its sorts, groupings and temporary tables, together) took more than the ${capMb} MB of temporary disk a query may have, and it was stopped. Sort or group fewer rows: add a WHERE clause, or sort a LIMITed subquery.`,
    ),
  queryDiskReserve: () =>
    make(
      'SIPHON_ERR_QUERY_RESOURCES',
      400,
      "The query's temporary files (its sorts and temporary tables) would have taken the free space the server keeps on its disk, and it was stopped. Try again later, or sort or group fewer rows.",
    ),
  callbackInvalid: () =>
    make(
      'SIPHON_ERR_CALLBACK_INVALID',
      400,
      'The callback must be a JavaScript identifier or dotted path (letters, digits, _ and $, not starting with a digit, at most 128 characters).',
    ),
  downloadInvalid: () => make('SIPHON_ERR_DL_INVALID', 400, 'dl must be 1 (send the body as a named file) or 0 (as when it is absent).'),
  excelInvalid: () =>
    make(
      'SIPHON_ERR_EXCEL_INVALID',
      400,
      'excel must be 1 (a CSV for Excel: a byte-order mark, CRLF, formulas made inert) or 0 (plain CSV).',
    ),
  pageSizeInvalid: (max: number) => make('SIPHON_ERR_PAGE_SIZE_INVALID', 400, `page_size must be a whole number of rows from 1 to ${max}.`),
  atomColumns: (missing: readonly string[]) =>
    make(
      'SIPHON_ERR_ATOM_COLUMNS',
      400,
      `An Atom feed needs columns named title, content, link and date; the query has no ${missing.join(', ')}. Name them with AS, for example: select name || ' ' || address as title, description as content, url as link, date_scraped as date from "data".`,
    ),
} as const;
