import { errors, type SiphonError } from '../errors.js';
import { defaults } from '../config.js';
import { formatNames } from '../formats/index.js';
import { maxPathSegmentChars, requestLimits } from '../limits/request-size.js';
import { allowedPragmaFunctions } from '../sql/check-sql.js';

type Factories = typeof errors;
type Area = 'query' | 'manage' | 'web';

/** The request bounds of a server with the default SQL limit, for the examples. */
const limits = requestLimits(defaults.maxQueryChars);

interface ErrorDoc<K extends keyof Factories> {
  /** Arguments for an example of the message a client gets. */
  example: Parameters<Factories[K]>;
  /** Markdown, as docs/api.md shows it. */
  when: string;
  /** `query`: answered by the data API; `manage`: by publishing and the command line; `web`: by the site's account pages and forms. */
  area: Area;
  /** The status is the one the HTTP layer gave (4xx), not a fixed one. */
  statusVaries?: true;
}

/**
 * One entry per error of src/errors.ts, typed so that tsc fails when an error is added there without
 * being documented here: docs/api.md and /docs cannot drift from what the service answers. Codes, statuses
 * and messages are taken from the errors themselves.
 */
const docs: { [K in keyof Factories]: ErrorDoc<K> } = {
  keyMissing: { example: [], area: 'query', when: 'no key in the headers or the query string' },
  keyInvalid: { example: [], area: 'query', when: 'the key is empty or unknown' },
  keyRevoked: { example: [], area: 'query', when: 'the key was revoked' },
  keyOrigin: {
    example: ['https://elsewhere.example'],
    area: 'query',
    when: 'a key made with `--origin`, used from a page of another origin, or by a request with neither an `Origin` nor a `Referer` header (see [Keys for web pages](#keys-for-web-pages))',
  },
  metricsToken: {
    example: [],
    area: 'manage',
    when: '`/metrics` on the public port without the metrics token (`--metrics-token`) in `Authorization: Bearer`',
  },
  keyReadOnly: { example: [], area: 'manage', when: 'a publish with a key created read-only' },
  forbidden: { example: ['alice/planning'], area: 'manage', when: "a publish with a key of another account than the scraper's owner" },
  scraperNotFound: {
    example: ['alice/no-such-scraper'],
    area: 'query',
    when: "no such scraper, or a private one asked for by anyone but its owner (with another account's key; on the web, by anyone not signed in as the owner): the same answer, so existence is not revealed",
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
  queryMissing: { example: [], area: 'query', when: '`query` missing or blank' },
  queryTooLong: {
    example: [defaults.maxQueryChars],
    area: 'query',
    when: 'the SQL is longer than the SQL length limit (`--max-query-chars`)',
  },
  queryNul: { example: [], area: 'query', when: 'the SQL contains a NUL character' },
  queryNotRead: {
    example: ['delete'],
    area: 'query',
    when: 'not one read-only `SELECT` / `WITH` / `VALUES` statement (PRAGMA, ATTACH, EXPLAIN, writes, `VACUUM INTO`, CREATE TEMP…)',
  },
  queryPragma: {
    example: ['pragma_database_list', allowedPragmaFunctions],
    area: 'query',
    when: 'the SQL names a pragma function other than those that describe the tables (`pragma_database_list`, `pragma_compile_options`…), or any other name starting with `pragma_`; the message lists the allowed ones',
  },
  sql: {
    example: ['no such table: dta'],
    area: 'query',
    when: 'SQLite refused or failed the query; the message is SQLite\'s own (`near "selec": syntax error`, `no such table: foo`, `The supplied SQL string contains more than one statement`)',
  },
  queryTimeout: { example: [10], area: 'query', when: 'the query ran past the time limit and was stopped; the message names the limit' },
  queryProcessDied: {
    example: [],
    area: 'query',
    when: 'the query needed more memory than a query process may have, or a temporary file larger than `--query-temp-mb`, or its process died',
  },
  queryTempDisk: {
    example: [defaults.queryTempMb],
    area: 'query',
    when: "the query's temporary files together (several sorts, groupings, `DISTINCT`s, `UNION`s) took more than `--query-temp-mb`; it is stopped while it runs",
  },
  queryDiskReserve: {
    example: [],
    area: 'query',
    when: "the query's temporary files reached the free space the server keeps on the data disk (`--disk-reserve-mb`); it is stopped while it runs",
  },
  callbackInvalid: { example: [], area: 'query', when: '`callback` is not a valid name (the name is not echoed back)' },
  downloadInvalid: { example: [], area: 'query', when: '`dl` is not `1` or `0`' },
  savedQueryNotFound: {
    example: ['demo/planning-applications', 'by-suburb'],
    area: 'query',
    when: "the scraper has no saved query of that name, or it is private and the caller is not the scraper's owner",
  },
  paramMissing: {
    example: [['town']],
    area: 'query',
    when: 'the SQL uses a `:named` parameter the request gives no value for (see [Named parameters](#named-parameters))',
  },
  paramUnused: {
    example: [['twon'], ['town']],
    area: 'query',
    when: 'the request gives a `:named` value the SQL does not use (a misspelt name), or any to `data.sqlite`',
  },
  paramsTooMany: { example: [100], area: 'query', when: 'the request gives more than 100 `:named` values' },
  paramsTooLong: {
    example: [100000],
    area: 'query',
    when: 'the SQL and its `:named` values together are longer than the SQL length limit (`--max-query-chars`)',
  },
  pageSizeInvalid: { example: [100000], area: 'query', when: '`page_size` is not a whole number from 1 to 100,000' },
  excelInvalid: { example: [], area: 'query', when: '`excel` on `data.csv` or a `.csv` table twin is not `1` or `0`' },
  atomColumns: {
    example: [['link', 'date']],
    area: 'query',
    when: '`data.atom` with a query that does not return a `title`, `content`, `link` or `date` column; the message names the missing ones',
  },
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
  versionInvalid: {
    example: ['latest'],
    area: 'query',
    when: '`version` on a data call, table page, twin or row page is not a whole number from 1 (see [Kept data versions](#kept-data-versions))',
  },
  versionGone: {
    example: ['alice/plants', 3, '/alice/plants/data.json?query=select+*+from+t'],
    area: 'query',
    when: '`version` names a data version that is no longer kept, or was never published; the message links to the same address without `version`, which reads the current data (a page says so as a page)',
  },
  keepInvalid: {
    example: [20, 3650],
    area: 'manage',
    when: "an owner's choice of how many versions or days to keep (`scraper keep`, the scraper's tools on the web) is out of bounds",
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
    when: "a table page's or row page's rows hold more than can be sent in one answer",
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
  nameInvalid: { example: ['scraper', 'my scraper'], area: 'manage', when: 'an account or scraper name that is not allowed' },
  accountExists: { example: ['alice'], area: 'manage', when: 'creating an account whose name is taken' },
  accountNotFound: {
    example: ['alice'],
    area: 'manage',
    when: 'naming an account that does not exist (also the HTML page of an unknown account)',
  },
  keyOriginInvalid: {
    example: ['https://*.example.org', 'wildcards are not supported, list each origin'],
    area: 'manage',
    when: '`key create --origin` with something other than a web origin (scheme, host and port)',
  },
  keyLabelInvalid: {
    example: [100],
    area: 'manage',
    when: 'a key label over 100 characters or with a line break or another control character',
  },
  savedQueryNameInvalid: {
    example: ['By Suburb'],
    area: 'manage',
    when: 'saving a query (`query save`) under a name that is not a slug',
  },
  savedQueryTextInvalid: {
    example: ['title', 200],
    area: 'manage',
    when: "a saved query's title (200 characters) or description (1,000) too long, or holding control characters",
  },
  savedQueryParamReserved: {
    example: ['key', ['key', 'query']],
    area: 'manage',
    when: "a saved query's SQL names a parameter its URLs already use (`:key`, `:query`, `:callback`, `:dl`, `:page_size`, `:next`, `:excel`)",
  },
  savedQueriesTooMany: { example: [100], area: 'manage', when: 'saving a new query when the scraper already has 100' },
  scraperExists: { example: ['alice/planning'], area: 'manage', when: 'adding a scraper that already exists' },
  dataInvalid: {
    example: ['data.db is not an SQLite database.'],
    area: 'manage',
    when: 'a published body, or a database file given to the CLI, is missing, empty, unreadable, not an SQLite database, or damaged',
  },
  dataTooLarge: { example: [536_870_912], area: 'manage', when: 'a published body is over the publish size limit (`--max-publish-mb`)' },
  contentType: {
    example: ['application/x-www-form-urlencoded or application/json'],
    area: 'query',
    when: "a published body is labelled with another `Content-Type` than the SQLite ones, or a query's POST body is neither a form nor JSON",
  },
  storageFull: {
    example: [],
    area: 'manage',
    when: 'a publish (or `scraper add`/`publish` in the CLI) found the disk full, or would have taken the free space the server keeps on it (`--disk-reserve-mb`); nothing was changed and the old data keeps serving',
  },
  urlInvalid: {
    example: [],
    area: 'query',
    when: 'the URL cannot be decoded: a `%` not followed by two hex digits (`plan%ZZning`), or escapes that are not UTF-8',
  },
  urlTooLong: {
    example: [limits.maxUrlBytes, maxPathSegmentChars],
    area: 'query',
    when: 'the URL is over its bound (9 bytes a character of the SQL limit, plus 8 KB), or a name in its path is over 100 characters',
  },
  headersTooLarge: {
    example: [limits.maxHeaderFieldBytes, limits.maxHeadBytes],
    area: 'query',
    when: "the header fields are over 16 KB, or the request line and headers together over the URL's bound plus 16 KB",
  },
  methodNotAllowed: {
    example: [['GET', 'HEAD', 'OPTIONS', 'POST']],
    area: 'query',
    when: 'a method the path does not take (a `POST` to a page, a `DELETE` of data, a `CONNECT`); `Allow` lists those it does',
  },
  requestTimeout: {
    example: [defaults.clientIdleTimeoutMs / 1000],
    area: 'query',
    when: "the request's headers did not all come within the client idle time (`--client-idle-timeout`), or its body (a POST's, a publish's) sent nothing for that long",
  },
  malformedRequest: {
    example: [],
    area: 'query',
    when: "not HTTP/1.1 that Node's parser can read: a bad request line, method, header, `Content-Length` or chunked body",
  },
  expectationFailed: { example: [], area: 'query', when: 'an `Expect` header other than `100-continue`' },
  hostInvalid: {
    example: [],
    area: 'query',
    when: 'an HTTP/1.1 request without a `Host` header, or an Atom feed asked for with a `Host` that is not a plain `host[:port]`',
  },
  bodyTooLarge: { example: [limits.maxBodyBytes], area: 'query', when: "a query's POST body is over its bound (that of the URL)" },
  bodyInvalid: {
    example: ['The body is not valid JSON.'],
    area: 'query',
    when: "a query's JSON body is not UTF-8 JSON, not an object, or has a `key`, `query` or `callback` that is not a string",
  },
  bodyIncomplete: { example: [], area: 'query', when: 'the client closed its side before the end of the body it announced' },
  clientClosed: {
    example: [],
    area: 'query',
    when: 'never sent (the client is gone): logged for a request whose client left before its answer',
  },
  badRequest: {
    example: [400],
    area: 'query',
    statusVaries: true,
    when: "anything else the HTTP layer refused below 500, with the status it gave and a message of ours (the framework's is not passed on)",
  },
  keyBusy: {
    example: [2, 16],
    area: 'query',
    when: 'the key already has as many queries running (`--key-concurrency`) and waiting (`--key-queue`) as a key may; `Retry-After` says when to try again',
  },
  rateLimited: {
    example: [600, 12],
    area: 'query',
    when: 'the key made more requests this minute than `--rate-limit` allows; `Retry-After` and `RateLimit-Reset` say when its count starts over',
  },
  pagesRateLimited: {
    example: [120, 12],
    area: 'web',
    when: 'one visitor address asked for more table and row pages this minute than `--pages-per-minute` allows (answered as a page; `Retry-After` says when its count starts over)',
  },
  signInFailed: {
    example: [],
    area: 'web',
    when: 'logging in on the web (`POST /login`, or the current password on `/account`) with an unknown account, a wrong password, or an account that has none',
  },
  signInRequired: {
    example: [],
    area: 'web',
    when: 'the query builder\'s "Fill in a new read-only key of mine" button (`POST /account/builder-key`) without being signed in (`/account` and its forms send to `/login` instead)',
  },
  signInThrottled: {
    example: [900],
    area: 'web',
    when: 'too many wrong passwords for the account (`--login-failures`) or from the address (`--login-failures-per-address`) within `--login-window`, at `/login` or for the current password on `/account`; `Retry-After` says when to try again',
  },
  signupThrottled: {
    example: [900],
    area: 'web',
    when: 'more sign-ups from the address than `--signups-per-address` within `--login-window` (each one whose fields were accepted counts, whether its name was free or not); `Retry-After` says when to try again',
  },
  signupClosed: { example: [], area: 'web', when: '`/signup` on a server started with `--signup closed`' },
  passwordInvalid: {
    example: [10, 200],
    area: 'web',
    when: 'a password shorter than 10 or longer than 200 characters (sign-up, `/account`, `user passwd`)',
  },
  passwordsDiffer: { example: [], area: 'web', when: "a form's password and its repetition differ (sign-up, `/account`)" },
  emailInvalid: {
    example: [],
    area: 'web',
    when: "a sign-up's optional email is not an address (one `@`, no spaces, at most 254 characters)",
  },
  csrfInvalid: {
    example: [],
    area: 'web',
    when: "a form of the site that changes something (sign-up, log in, log out, keys, password, a scraper's settings or data) sent without this browser's token: from another site, or from a page older than the browser's token cookie; nothing was changed",
  },
  downloadCrossSite: {
    example: [],
    area: 'web',
    when: "a download button's address (`/{owner}/{scraper}/download…`) opened by another site's page (`Sec-Fetch-Site` other than `same-origin` or `none`), which would spend the signed-in visitor's downloads",
  },
  formInvalid: {
    example: ['Choose a database file to publish.'],
    area: 'web',
    when: "a field of one of the site's forms is missing or not allowed (a description over 1,000 characters, a visibility other than `public` or `private`, no file chosen to publish, a key to revoke that is not the account's, any field holding the character U+0000)",
  },
  importTimeout: {
    example: [300],
    area: 'manage',
    when: 'importing a published database (copying and checking it) took longer than `--import-timeout` and was stopped; nothing was changed',
  },
  importResources: {
    example: [],
    area: 'manage',
    when: 'importing a published database needed more memory than an import may have and was stopped; nothing was changed',
  },
  busy: {
    example: [],
    area: 'query',
    when: 'more queries are waiting for a query process than the queue holds (`--queue-limit`); answered at once, with `Retry-After`',
  },
  queueTimeout: {
    example: [30],
    area: 'query',
    when: 'the query waited longer than `--queue-timeout` for a query process; with `Retry-After`',
  },
  downloadsBacklog: {
    example: [],
    area: 'query',
    when: "downloads cannot be written (the server's disk is full?) and the backlog held in memory is full, so the call is refused before anything runs rather than served unrecorded; `Retry-After: 30`",
  },
  unavailable: { example: [], area: 'query', when: 'the service is stopping or has no query process ready' },
  internal: { example: [], area: 'query', when: 'a fault of ours; it is logged' },
};

export interface DocumentedError {
  code: string;
  /** `401`, or `4xx` when it varies. */
  status: string;
  /** Markdown, as docs/api.md shows it. */
  when: string;
  example: string;
  area: Area;
}

/** Every error, in the order src/errors.ts gathers them. */
export const errorReference: DocumentedError[] = (Object.keys(errors) as (keyof Factories)[]).map((name) => {
  const doc = docs[name] as ErrorDoc<typeof name>;
  const error = (errors[name] as (...args: unknown[]) => SiphonError)(...doc.example);
  return {
    code: error.code,
    status: doc.statusVaries ? '4xx' : String(error.status),
    when: doc.when,
    example: error.message,
    area: doc.area,
  };
});
