import { reservedAccountNames } from './utils/names.js';

/**
 * Every error a client can be answered with, defined once with its code, status and message.
 * Routes throw these; the error renderer turns them into `{"error": "..."}` (or a JSONP callback call).
 * Codes are part of the API (docs/api.md, "Errors"): never reuse or rename one.
 */
export class SiphonError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Sent as `Retry-After`: when trying again may succeed. */
    readonly retryAfterSeconds?: number,
    /** Sent as `Allow`: the methods the path does take (405). */
    readonly allow?: readonly string[],
  ) {
    super(message);
    this.name = 'SiphonError';
  }
}

/**
 * Why a query did not complete, in the query engine's own terms (it knows nothing of HTTP); the HTTP
 * layer answers it with `errorForQuery`. `internal` is our fault and is logged with its stack.
 */
export type QueryFailure =
  | { kind: 'sql'; message: string }
  | { kind: 'not-read' }
  | { kind: 'columns'; missing: string[] }
  | { kind: 'timeout'; seconds: number }
  /**
   * Out of memory or temporary disk, or the process was killed from outside. `tempDisk`: stopped by
   * the watch on its temporary files (pool/temp-disk.ts), past the cap of `capMb` a query, or into
   * the room kept free on the data disk.
   */
  | { kind: 'resources'; tempDisk?: { capMb: number } | 'reserve' }
  | { kind: 'internal'; message: string; stack?: string }
  | { kind: 'busy' }
  | { kind: 'key-busy'; running: number; waiting: number }
  | { kind: 'queue-timeout'; seconds: number }
  | { kind: 'closing' };

export class QueryFailed extends Error {
  constructor(readonly failure: QueryFailure) {
    super('message' in failure ? failure.message : failure.kind);
    this.name = 'QueryFailed';
    if (failure.kind === 'internal' && failure.stack) this.stack = failure.stack;
  }
}

const make = (code: string, status: number, message: string, retryAfterSeconds?: number, allow?: readonly string[]) =>
  new SiphonError(code, status, message, retryAfterSeconds, allow);

export const errors = {
  // 401: who is calling
  keyMissing: () =>
    make(
      'SIPHON_ERR_KEY_MISSING',
      401,
      'API key is missing. Pass it as the key parameter, an X-API-Key header or an Authorization: Bearer header.',
    ),
  keyInvalid: () => make('SIPHON_ERR_KEY_INVALID', 401, 'API key is not valid. Check it, or create a new one.'),
  keyRevoked: () => make('SIPHON_ERR_KEY_REVOKED', 401, 'API key has been revoked. Create a new one.'),
  // 401: the operator's metrics (--metrics-token). The token is never echoed.
  metricsToken: () =>
    make('SIPHON_ERR_METRICS_TOKEN', 401, "The metrics need the operator's metrics token, sent as Authorization: Bearer <token>."),
  // 403: a key limited to some web sites (key create --origin), used from elsewhere or from nowhere said.
  // Only the request's own origin is echoed: never the key's list, never a Referer's path.
  keyOrigin: (sent: string | undefined) =>
    make(
      'SIPHON_ERR_KEY_ORIGIN',
      403,
      sent === undefined
        ? 'This API key can only be used from the web sites it was created for, and this request does not say where it comes from (no Origin or Referer header). Call from a page of one of those sites without hiding its Referer, or use a key made without --origin.'
        : `This API key can only be used from the web sites it was created for, not from ${JSON.stringify(sent.slice(0, 100))}.`,
    ),

  // 403: who may publish. Only the owner's keys, and never a key created read-only.
  keyReadOnly: () =>
    make(
      'SIPHON_ERR_KEY_READ_ONLY',
      403,
      'This API key is read-only: it can query data but never publish it. Use a key created without --read-only.',
    ),
  forbidden: (fullName: string) => make('SIPHON_ERR_FORBIDDEN', 403, `Only the owner's keys can publish data to ${fullName}.`),

  // 404: what is asked for. A private scraper gets the unknown-scraper answer so its existence is not revealed.
  scraperNotFound: (fullName: string) => make('SIPHON_ERR_SCRAPER_NOT_FOUND', 404, `can't find scraper ${fullName}`),
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

  // 400: what was sent
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
  atomColumns: (missing: readonly string[]) =>
    make(
      'SIPHON_ERR_ATOM_COLUMNS',
      400,
      `An Atom feed needs columns named title, content, link and date; the query has no ${missing.join(', ')}. Name them with AS, for example: select name || ' ' || address as title, description as content, url as link, date_scraped as date from "data".`,
    ),

  // A table page's view (sort, filters, columns, paging: src/browse/). Names are echoed (cut short), values never.
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
      `The rows asked for hold more than ${maxMb} MB. Ask for fewer rows (_size) or columns (_col, _nocol), or query the data with SQL.`,
    ),
  /** `firstPage`: the parameters of the same view's first page, for a link to it. */
  pageTokenInvalid: (firstPage: [string, string][]) =>
    Object.assign(
      make(
        'SIPHON_ERR_PAGE_TOKEN_INVALID',
        400,
        'The _next token is not one this view gave out: it was changed, or belongs to another sort, filter or search. Start again from the first page.',
      ),
      { firstPage },
    ),
  pageTokenStale: (firstPage: [string, string][]) =>
    Object.assign(
      make(
        'SIPHON_ERR_PAGE_TOKEN_STALE',
        409,
        "The _next token is for an older version of this scraper's data, which has since been published again. Start again from the first page of the current data.",
      ),
      { firstPage },
    ),

  // Managing accounts and scrapers (CLI, and publishing over HTTP)
  nameInvalid: (what: string, name: string) =>
    make(
      'SIPHON_ERR_NAME_INVALID',
      400,
      `${JSON.stringify(name)} is not a valid ${what} name: use letters, digits, '_' and '-'${what === 'scraper' ? " (and '.', not ending in .json)" : ` (not ${reservedAccountNames.join(', ')}: pages of the site)`}.`,
    ),
  accountExists: (name: string) => make('SIPHON_ERR_ACCOUNT_EXISTS', 409, `An account named ${name} already exists.`),
  accountNotFound: (name: string) => make('SIPHON_ERR_ACCOUNT_NOT_FOUND', 404, `There is no account named ${name}.`),
  keyOriginInvalid: (text: string, problem: string) =>
    make(
      'SIPHON_ERR_KEY_ORIGIN_INVALID',
      400,
      `${JSON.stringify(text.slice(0, 200))} is not a web origin: ${problem}. Give the scheme, host and port only, such as https://maps.example.org or http://localhost:8080.`,
    ),
  keyLabelInvalid: (maxChars: number) =>
    make(
      'SIPHON_ERR_KEY_LABEL_INVALID',
      400,
      `A key's label is text of at most ${maxChars} characters, without line breaks or other control characters.`,
    ),
  scraperExists: (fullName: string) =>
    make('SIPHON_ERR_SCRAPER_EXISTS', 409, `Scraper ${fullName} already exists; use publish to replace its data.`),
  dataInvalid: (why: string) => make('SIPHON_ERR_DATA_INVALID', 400, why),
  dataTooLarge: (maxBytes: number) =>
    make('SIPHON_ERR_DATA_TOO_LARGE', 413, `The database is larger than the publish limit of ${maxBytes} bytes.`),
  /** `accepted` says what to send; what was sent is not echoed (the rule for every header). */
  contentType: (accepted: string) =>
    make('SIPHON_ERR_CONTENT_TYPE', 415, `The body's Content-Type is not one this endpoint reads. Send it as ${accepted}.`),

  // The HTTP layer: requests that cannot be read as sent. No message echoes the request's URL,
  // parameters or headers, which can hold a key.
  urlInvalid: () =>
    make(
      'SIPHON_ERR_URL_INVALID',
      400,
      'The URL cannot be read: a % must be followed by two hex digits, and the percent-encoded bytes must be UTF-8.',
    ),
  urlTooLong: (maxBytes: number, maxSegmentChars: number) =>
    make(
      'SIPHON_ERR_URL_TOO_LONG',
      414,
      `The URL is too long: at most ${maxBytes} bytes, and ${maxSegmentChars} characters in a name between slashes. Send a longer query in a POST body.`,
    ),
  headersTooLarge: (maxFieldBytes: number, maxHeadBytes: number) =>
    make(
      'SIPHON_ERR_HEADERS_TOO_LARGE',
      431,
      `The request's headers are too large: at most ${maxFieldBytes} bytes of header fields, and ${maxHeadBytes} bytes with the request line.`,
    ),
  methodNotAllowed: (allow: readonly string[]) =>
    make('SIPHON_ERR_METHOD_NOT_ALLOWED', 405, `This path does not take that method. Use ${allow.join(', ')}.`, undefined, allow),
  requestTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_REQUEST_TIMEOUT',
      408,
      `The request did not arrive in time: its headers took longer than ${seconds} s, or its body sent nothing for ${seconds} s.`,
    ),
  malformedRequest: () =>
    make(
      'SIPHON_ERR_MALFORMED_REQUEST',
      400,
      'The request is not valid HTTP/1.1: its request line, a header or its chunked body could not be read.',
    ),
  expectationFailed: () => make('SIPHON_ERR_EXPECTATION', 417, 'The only Expect header understood is Expect: 100-continue.'),
  hostInvalid: () => make('SIPHON_ERR_HOST_INVALID', 400, 'The Host header is missing or not a valid host[:port].'),
  bodyTooLarge: (maxBytes: number) =>
    make('SIPHON_ERR_BODY_TOO_LARGE', 413, `The request body is larger than the ${maxBytes} bytes accepted.`),
  bodyInvalid: (why: string) => make('SIPHON_ERR_BODY_INVALID', 400, why),
  bodyIncomplete: () => make('SIPHON_ERR_BODY_INCOMPLETE', 400, 'The request body ended before it was complete.'),
  /** Never sent (the client is gone): logged as the outcome of a request whose client left first. */
  clientClosed: () => make('SIPHON_ERR_CLIENT_CLOSED', 499, 'The client closed the connection before it was answered.'),
  /** Anything else the HTTP layer refused below 500, with its status; the framework's message is not passed on. */
  badRequest: (status: number) => make('SIPHON_ERR_BAD_REQUEST', status, 'The request cannot be handled as it was sent.'),

  // 429: one key asking too much, so that it cannot slow down everyone else
  keyBusy: (running: number, waiting: number) =>
    make(
      'SIPHON_ERR_KEY_BUSY',
      429,
      `This key already has ${running} queries running and ${waiting} waiting. Wait for them to finish before sending more.`,
      1,
    ),
  rateLimited: (perMinute: number, retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_RATE_LIMITED',
      429,
      `This key made more than ${perMinute} requests in a minute. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    ),

  pagesRateLimited: (perMinute: number, retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_PAGES_RATE_LIMITED',
      429,
      `This address asked for more than ${perMinute} table pages in a minute. Try again in ${retryAfterSeconds} s, or use the API with a key.`,
      retryAfterSeconds,
    ),

  // Accounts on the web (/signup, /login, /account): answered as pages, with the code in Siphon-Error-Code
  signInFailed: () => make('SIPHON_ERR_SIGN_IN_FAILED', 401, 'The account name or the password is wrong.'),
  signInRequired: () => make('SIPHON_ERR_SIGN_IN_REQUIRED', 401, 'Sign in first: this needs a signed-in account.'),
  signInThrottled: (retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_SIGN_IN_THROTTLED',
      429,
      `Too many wrong passwords for this account or from this address. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    ),
  signupThrottled: (retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_SIGNUP_THROTTLED',
      429,
      `Too many sign-ups from this address. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    ),
  signupClosed: () =>
    make(
      'SIPHON_ERR_SIGNUP_CLOSED',
      403,
      'This server does not take sign-ups: accounts and keys come from its operator (siphon user add).',
    ),
  passwordInvalid: (minChars: number, maxChars: number) =>
    make('SIPHON_ERR_PASSWORD_INVALID', 400, `A password is ${minChars} to ${maxChars} characters long.`),
  passwordsDiffer: () => make('SIPHON_ERR_PASSWORDS_DIFFER', 400, 'The two passwords given are not the same.'),
  emailInvalid: () => make('SIPHON_ERR_EMAIL_INVALID', 400, 'The email address is not valid: one @, no spaces, at most 254 characters.'),
  /** The form's token is missing or not this browser's: a page of another site sent it, or it was too old. */
  csrfInvalid: () =>
    make(
      'SIPHON_ERR_CSRF',
      403,
      "This form was not sent from this site's own page, or the page is too old. Reload the page and send it again; nothing was changed.",
    ),
  formInvalid: (why: string) => make('SIPHON_ERR_FORM_INVALID', 400, why),

  // Publishing: the database sent is too costly to check
  importTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_IMPORT_TIMEOUT',
      400,
      `Checking the database took longer than the ${seconds} s limit and was stopped (expensive views, generated columns or virtual tables?). Nothing was changed.`,
    ),
  importResources: () =>
    make(
      'SIPHON_ERR_IMPORT_RESOURCES',
      400,
      'Checking the database needed more memory than an import may have and was stopped. Nothing was changed.',
    ),

  // 503: the service, not the client
  storageFull: () =>
    make('SIPHON_ERR_STORAGE_FULL', 507, 'The server has no room left to store this data. Nothing was changed; try again later.'),
  busy: () => make('SIPHON_ERR_BUSY', 503, 'Too many queries are waiting. Try again in a few seconds.', 5),
  queueTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_QUEUE_TIMEOUT',
      503,
      `The query waited ${seconds} s for a query process without getting one. Try again in a few seconds.`,
      5,
    ),
  downloadsBacklog: () =>
    make(
      'SIPHON_ERR_DOWNLOADS_BACKLOG',
      503,
      "Downloads cannot be recorded right now (the server's disk is full?), so no data is served. Try again later.",
      30,
    ),
  unavailable: () => make('SIPHON_ERR_UNAVAILABLE', 503, 'The service is shutting down or not ready.'),
  internal: () => make('SIPHON_ERR_INTERNAL', 500, 'Something went wrong on our side. It has been logged.'),
} as const;

/** The answer a client gets for a query that failed. */
export function errorForQuery(failure: QueryFailure): SiphonError {
  switch (failure.kind) {
    case 'sql':
      return errors.sql(failure.message);
    case 'not-read':
      return errors.queryNotRead();
    // A format that needs columns answers their absence with its own error (formats/index.ts).
    case 'columns':
      return errors.internal();
    case 'timeout':
      return errors.queryTimeout(failure.seconds);
    case 'resources':
      if (failure.tempDisk === 'reserve') return errors.queryDiskReserve();
      return failure.tempDisk ? errors.queryTempDisk(failure.tempDisk.capMb) : errors.queryProcessDied();
    case 'internal':
      return errors.internal();
    case 'busy':
      return errors.busy();
    case 'key-busy':
      return errors.keyBusy(failure.running, failure.waiting);
    case 'queue-timeout':
      return errors.queueTimeout(failure.seconds);
    case 'closing':
      return errors.unavailable();
  }
}
