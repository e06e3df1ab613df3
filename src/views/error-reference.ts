import { errors, type SiphonError } from '../errors.js';
import { defaults } from '../config.js';
import { formatNames } from '../formats/index.js';
import { maxPathSegmentChars, requestLimits } from '../limits/request-size.js';
import { allowedPragmaFunctions } from '../sql/check-sql.js';

type Factories = typeof errors;

/** The request bounds of a server with the default SQL limit, for the examples. */
const limits = requestLimits(defaults.maxQueryChars);

interface ErrorDoc<K extends keyof Factories> {
  /** Arguments for an example of the message a client gets. */
  example: Parameters<Factories[K]>;
  /** Plain text; `backticks` mark code. */
  when: string;
  /** `query`: answered by the data API; `manage`: by publishing and the command line. */
  area: 'query' | 'manage';
  /** The status is the one the HTTP layer gave (4xx), not a fixed one. */
  statusVaries?: true;
}

/**
 * One entry per error in src/errors.ts, typed so that tsc fails when an error is added there without
 * being documented here: the docs page cannot drift from what the service answers. Codes, statuses
 * and messages are taken from the errors themselves.
 */
const docs: { [K in keyof Factories]: ErrorDoc<K> } = {
  keyMissing: { example: [], area: 'query', when: 'No key in the headers or the query string.' },
  keyInvalid: { example: [], area: 'query', when: 'The key is empty or unknown.' },
  keyRevoked: { example: [], area: 'query', when: 'The key was revoked.' },
  keyOrigin: { example: ['https://elsewhere.example'], area: 'query', when: 'A key made with `--origin`, used from a page of another origin, or by a request with neither an `Origin` nor a `Referer` header.' },
  keyReadOnly: { example: [], area: 'manage', when: 'A read-only key was used to publish.' },
  forbidden: { example: ['alice/planning'], area: 'manage', when: "Publishing to another account's scraper." },
  scraperNotFound: { example: ['alice/no-such-scraper'], area: 'query', when: 'No such scraper, or it is private (the same answer: existence is not revealed).' },
  formatUnknown: { example: [formatNames], area: 'query', when: '`data.<format>` is not one of the formats.' },
  routeNotFound: { example: [], area: 'query', when: 'Any other path.' },
  queryMissing: { example: [], area: 'query', when: '`query` is missing or blank.' },
  queryTooLong: { example: [defaults.maxQueryChars], area: 'query', when: 'The SQL is longer than the limit.' },
  queryNul: { example: [], area: 'query', when: 'The SQL contains a NUL character.' },
  queryNotRead: { example: ['delete'], area: 'query', when: 'Not one read-only SELECT, WITH or VALUES statement (PRAGMA, ATTACH, writes…).' },
  queryPragma: { example: ['pragma_database_list', allowedPragmaFunctions], area: 'query', when: 'The SQL names a pragma function other than those that describe the tables (`pragma_table_info`, `pragma_index_list`…), or any name starting with `pragma_`.' },
  sql: { example: ['no such table: dta'], area: 'query', when: "SQLite refused or failed the query; the message is SQLite's own." },
  queryTimeout: { example: [10], area: 'query', when: 'The query ran past the time limit and was stopped.' },
  queryProcessDied: { example: [], area: 'query', when: 'The query needed more memory or temporary disk than a query process may have, or its process died.' },
  callbackInvalid: { example: [], area: 'query', when: '`callback` is not a valid name (it is not echoed back).' },
  atomColumns: { example: [['link', 'date']], area: 'query', when: 'An `atom` query does not return all of `title`, `content`, `link` and `date`.' },
  nameInvalid: { example: ['scraper', 'my scraper'], area: 'manage', when: 'An account or scraper name that is not allowed.' },
  accountExists: { example: ['alice'], area: 'manage', when: 'Creating an account whose name is taken.' },
  accountNotFound: { example: ['alice'], area: 'manage', when: 'Naming an account that does not exist.' },
  keyOriginInvalid: { example: ['https://*.example.org', 'wildcards are not supported, list each origin'], area: 'manage', when: '`key create --origin` with something other than a web origin (scheme, host and port).' },
  keyLabelInvalid: { example: [100], area: 'manage', when: 'A key label that is too long or holds a line break or another control character.' },
  scraperExists: { example: ['alice/planning'], area: 'manage', when: 'Adding a scraper that already exists.' },
  dataInvalid: { example: ['data.db is not an SQLite database.'], area: 'manage', when: 'A missing, unreadable, non-SQLite or damaged database file.' },
  dataTooLarge: { example: [536_870_912], area: 'manage', when: 'A published database is larger than the publish limit.' },
  contentType: { example: ['application/x-www-form-urlencoded or application/json'], area: 'query', when: "A query's POST body, or a published database, sent with a `Content-Type` the endpoint does not read." },
  storageFull: { example: [], area: 'manage', when: 'Publishing found the disk full; nothing was changed.' },
  urlInvalid: { example: [], area: 'query', when: 'The URL has a malformed percent-encoding (`%ZZ`, a lone `%`) or bytes that are not UTF-8.' },
  urlTooLong: { example: [limits.maxUrlBytes, maxPathSegmentChars], area: 'query', when: 'The URL is longer than the bound that fits the longest query however it is encoded, or a name in its path is longer than any name can be.' },
  headersTooLarge: { example: [limits.maxHeaderFieldBytes, limits.maxHeadBytes], area: 'query', when: 'The header fields, or the request line and headers together, are over their bounds.' },
  methodNotAllowed: { example: [['GET', 'HEAD', 'OPTIONS', 'POST']], area: 'query', when: 'A method the path does not take (a POST to a page, a DELETE of data); `Allow` lists those it does.' },
  requestTimeout: { example: [defaults.clientIdleTimeoutMs / 1000], area: 'query', when: "The request's headers did not all come in time, or its body stalled." },
  malformedRequest: { example: [], area: 'query', when: "Not HTTP/1.1 that Node's parser can read: a bad request line, method, header or chunked body." },
  expectationFailed: { example: [], area: 'query', when: 'An `Expect` header other than `100-continue`.' },
  hostInvalid: { example: [], area: 'query', when: 'An HTTP/1.1 request without a `Host` header, or a feed asked for with a `Host` that is not a plain `host[:port]`.' },
  bodyTooLarge: { example: [limits.maxBodyBytes], area: 'query', when: "A query's POST body is over its bound (that of a URL holding the longest query)." },
  bodyInvalid: { example: ['The body is not valid JSON.'], area: 'query', when: "A query's JSON body is not valid UTF-8 JSON, not an object, or has a `key`, `query` or `callback` that is not a string." },
  bodyIncomplete: { example: [], area: 'query', when: 'The client ended a request body before it was complete.' },
  clientClosed: { example: [], area: 'query', when: 'Never sent: logged for a request whose client went away before its answer.' },
  badRequest: { example: [400], area: 'query', statusVaries: true, when: 'Anything else the HTTP layer refused, with the status it gave; the framework\'s own message is not passed on.' },
  keyBusy: { example: [2, 16], area: 'query', when: 'The key already has as many queries running and waiting as a key may (`Retry-After` says when to try again).' },
  rateLimited: { example: [600, 12], area: 'query', when: 'The key made more requests this minute than the rate limit allows (`Retry-After`, `RateLimit-*` headers).' },
  signInFailed: { example: [], area: 'manage', when: 'Logging in on the web with an unknown account, a wrong password, or an account that has none.' },
  signInRequired: { example: [], area: 'manage', when: 'A page or form of an account (`/account`, a key for the query builder) asked for without being signed in.' },
  signInThrottled: { example: [900], area: 'manage', when: 'Too many wrong passwords for the account or from the address within the login window (`Retry-After`).' },
  signupClosed: { example: [], area: 'manage', when: '`/signup` on a server started with `--signup closed`.' },
  passwordInvalid: { example: [10, 200], area: 'manage', when: 'A password shorter or longer than a password may be.' },
  passwordsDiffer: { example: [], area: 'manage', when: 'The password and its repetition differ.' },
  emailInvalid: { example: [], area: 'manage', when: 'The optional email of a sign-up is not an address.' },
  csrfInvalid: { example: [], area: 'manage', when: "A form of the site (log out, keys, password, a scraper's settings or data) sent without the token of this browser's page: from another site, or from a page older than the browser's token." },
  formInvalid: { example: ['Choose a database file to publish.'], area: 'manage', when: 'A field of a form of the site is missing or not what it may be.' },
  importTimeout: { example: [300], area: 'manage', when: 'Checking a published database took longer than the import time limit.' },
  importResources: { example: [], area: 'manage', when: 'Checking a published database needed more memory than an import may have.' },
  busy: { example: [], area: 'query', when: 'More queries are waiting for a query process than the queue holds; try again shortly.' },
  queueTimeout: { example: [30], area: 'query', when: 'The query waited for a query process longer than the queue timeout.' },
  downloadsBacklog: { example: [], area: 'query', when: 'Downloads cannot be recorded (full disk) and the backlog of unrecorded ones is full; nothing is served until they can be.' },
  unavailable: { example: [], area: 'query', when: 'The service is stopping or has no query process ready.' },
  internal: { example: [], area: 'query', when: 'A fault of ours; it is logged.' },
};

export interface DocumentedError {
  code: string;
  /** `401`, or `4xx` when it varies. */
  status: string;
  /** Plain text; `backticks` mark code. */
  when: string;
  example: string;
  area: 'query' | 'manage';
}

/** Every error, in the order src/errors.ts defines them. */
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
