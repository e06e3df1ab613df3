import os from 'node:os';

/**
 * Everything the service can be configured with. `serve` builds it once at start-up from flags,
 * environment and defaults (src/config/settings.ts, where each field's flag and variable are).
 */
export interface Config {
  dataDir: string;
  /**
   * A PostgreSQL URL (`postgres://user:pass@host/db`) holding accounts, keys, scrapers, downloads and
   * rate-limit counters, shared by every node pointed at it; unset: `siphon.db` in the data folder.
   */
  databaseUrl?: string;
  host: string;
  port: number;
  /** Execution time a query may use. Time spent waiting for a slow client does not count. */
  queryTimeoutMs: number;
  /** A client that reads nothing for this long while a response waits on it is dropped; so is a publish whose body stalls this long. */
  clientIdleTimeoutMs: number;
  /** Query processes: each runs one query at a time. */
  queryProcesses: number;
  /** Queries that have worked longer than a second (exports, big sorts) running at once; the rest of the pool stays for short ones. */
  longQueries: number;
  /** Queries waiting for a query process, all keys together; beyond this, 503 at once. */
  queueLimit: number;
  /** A query that waited this long for a process is answered 503 instead. */
  queueTimeoutMs: number;
  /** Queries of one key running at once; its further queries wait in its own queue. */
  keyConcurrency: number;
  /** Queries of one key waiting; beyond this, 429. */
  keyQueue: number;
  /** Data requests per key per minute; 0 turns the rate limit off. */
  rateLimitPerMinute: number;
  /** Table and row pages (HTML, anonymous visitors included) per visitor address per minute; 0 turns the limit off. */
  pagesPerMinute: number;
  /** A response still streaming after this long is cut short, whatever the client's reading speed. */
  maxResponseMs: number;
  /** Output a client has not taken yet is kept in a temporary file up to this much per response… */
  spoolResponseMb: number;
  /** …and this much for all responses together; past either, the query process waits for the client (its time limit running). */
  spoolTotalMb: number;
  /** Rows of each rowid range of a whole-table export split over two query processes; 0: never split. */
  exportRangeRows: number;
  /** Queries sent ahead to a busy query process at most, to run right after its query; 0: none is. */
  queriesAhead: number;
  /** Address-space cap of each query process, so one query cannot take the machine's memory. */
  queryMemoryMb: number;
  /** A query's temporary files (sorts, temporary tables) together, at most; also the largest one. */
  queryTempMb: number;
  /** Free space of the data disk that no query's temporary files and no import may take. */
  diskReserveBytes: number;
  /** An import of a published database (copy and check) running longer than this is stopped and refused. */
  importTimeoutMs: number;
  /** Longest SQL text accepted. */
  maxQueryChars: number;
  /** Largest database accepted by a publish over HTTP (PUT …/data.sqlite); larger bodies get 413. */
  maxPublishBytes: number;
  /** Downloads waiting to be written (while the disk is full, say); once this many wait, the data API answers 503. */
  maxPendingDownloads: number;
  logLevel: string;
  /**
   * `json`: one JSON object a line; `pretty`: readable lines, for a person; `auto`: pretty when stdout
   * is a terminal, else json.
   */
  logFormat: 'auto' | 'json' | 'pretty';
  /**
   * The proxies whose `X-Forwarded-For` (and `-Proto`, `-Host`) are believed: false for none, true for
   * any peer, or a comma-separated list of addresses, CIDR ranges and proxy-addr's names (`loopback`…).
   */
  trustProxy: boolean | string;
  /** /metrics on a listener of its own, on this port of `host` (0 picks one); unset: not on one. */
  metricsPort?: number;
  /** /metrics asks for this token (`Authorization: Bearer`); alone, it puts /metrics on the public port. */
  metricsToken?: string;
  /** Whether visitors may create accounts at /signup; when closed, keys come from the operator (`user add`). */
  signup: 'open' | 'closed';
  /** A web session ends this long after signing in, whatever happens meanwhile. */
  sessionLifetimeMs: number;
  /** Wrong passwords for one account within `loginWindowMs`; beyond, it cannot sign in until the window ends (429). */
  loginFailures: number;
  /** Wrong passwords from one address within `loginWindowMs`, whatever the account; beyond, 429. */
  loginFailuresPerAddress: number;
  loginWindowMs: number;
  /** Sign-ups from one address within `loginWindowMs` (each costs a password hash and an account); beyond, 429. 0: no limit. */
  signupsPerAddress: number;
  /**
   * Where clients reach the service (`https://data.example.org`), for the absolute URLs in Atom feeds.
   * Unset: taken from each request's protocol and Host header.
   */
  publicUrl?: string;
  /** Data versions kept per scraper, the current one included, unless its owner chose otherwise (src/scrapers/retention.ts). */
  keepVersions: number;
  /** Kept versions older than this many days are retired too (0: no age limit), unless the owner chose otherwise. */
  keepDays: number;
  /** The most versions an owner may choose to keep: with the largest publish, what one scraper may hold on disk. */
  maxKeepVersions: number;
}

export const defaults = {
  host: '127.0.0.1',
  port: 3000,
  queryTimeoutMs: 10_000,
  clientIdleTimeoutMs: 60_000,
  // Measured on a 2-core machine: 4 processes reach ~88% of in-process throughput for small queries;
  // two more leave room for short queries while up to four long ones run (longQueries).
  queryProcesses: 2 * os.availableParallelism() + 2,
  longQueries: 2 * os.availableParallelism(),
  queueLimit: 200,
  queueTimeoutMs: 30_000,
  keyConcurrency: 2,
  keyQueue: 16,
  rateLimitPerMinute: 600,
  // A person clicks through a few pages a minute; this leaves room for an office behind one address,
  // and keeps a crawler to ~2 pages a second, each a few queries in the previews' one process.
  pagesPerMinute: 120,
  maxResponseMs: 600_000,
  spoolResponseMb: 512,
  spoolTotalMb: 2048,
  // Measured with bench/cpu-costs.ts on the bench's table: ~0.8 MB of json a range; 512 rows cost
  // more per range, 32k and more cost the server more per row.
  exportRangeRows: 2048,
  // Small queries alternated on one machine: 8 rather than 1, +15 % a second and 11 % less of the
  // server's CPU per query, the p99 a few ms higher (pool/send-ahead.ts says why).
  queriesAhead: 8,
  queryTempMb: 512,
  // Room for what must go on being written when queries and imports have taken the rest: the
  // metadata store (downloads, sessions), the downloads spool, the logs if they share the disk; and
  // for what queries write between two looks of the watch (pool/temp-disk.ts): a sort was measured
  // writing up to 250 MB/s, so ~5 MB in the 20 ms between looks, and up to ~25 MB before the first
  // look at a query (100 ms) on each of the (2 × cores + 2) query processes. docs/operations.md.
  diskReserveBytes: 256 * 1024 * 1024,
  importTimeoutMs: 300_000,
  // Address space, not resident memory: an idle query process already maps ~730 MB (with
  // MALLOC_ARENA_MAX=2, see pool.ts). 1536 MB leaves ~800 MB for SQLite and the result being encoded;
  // a query needing more fails with a 400 instead of starving the machine.
  queryMemoryMb: 1536,
  // Real queries are a few hundred characters; 100k leaves room for generated IN (...) lists.
  maxQueryChars: 100_000,
  // A publish needs twice this on disk for a moment (the upload and its imported copy).
  maxPublishBytes: 512 * 1024 * 1024,
  // A few seconds of downloads at full speed (~4,000 a second, bench) and a few MB of memory.
  maxPendingDownloads: 10_000,
  logLevel: 'info',
  logFormat: 'auto',
  trustProxy: false,
  signup: 'open',
  sessionLifetimeMs: 7 * 24 * 3600 * 1000,
  // Five guesses per quarter of an hour: a person who mistypes gets several tries, a guesser 480 a day.
  loginFailures: 5,
  // One address may be a whole office or a university's NAT, so it gets more.
  loginFailuresPerAddress: 50,
  loginWindowMs: 15 * 60 * 1000,
  // A household or an office signing up together fits; a script making accounts gets 960 a day.
  signupsPerAddress: 10,
  // morph.io keeps one; 5 covers a week of daily runs for a link shared in a report (issue 36).
  keepVersions: 5,
  keepDays: 0,
  maxKeepVersions: 20,
} as const;

/**
 * The longest `--queue-timeout` accepted. A request looks its data file up before it waits in the
 * queue, so old data versions are kept well beyond this (src/scrapers/versions.ts).
 */
export const maxQueueTimeoutMs = 300_000;

/** No setting or owner may keep more data versions than this: each may be as large as a publish (src/scrapers/retention.ts). */
export const maxKeptVersions = 1000;
/** Ten years: an age limit is a number of days a person chooses, not a way to overflow a date. */
export const maxKeptDays = 3650;

export function configWith(overrides: Partial<Config> & { dataDir: string }): Config {
  return { ...defaults, ...overrides };
}
