/**
 * The metadata store: accounts, hashed keys, scrapers and downloads. Handlers only see this
 * interface; two engines meet it (SQLite, src/store/sqlite-store.ts, and PostgreSQL,
 * src/store/pg-store.ts), and test/store-contract.test.ts runs the same tests against both.
 *
 * What it means, whatever the engine:
 * - Names (of accounts and scrapers) match case-insensitively for the ASCII letters A–Z only; every
 *   other character matches itself. Account and scraper names are ASCII (src/scrapers/names.ts).
 * - Timestamps are ISO texts in UTC as `Date.prototype.toISOString()` writes them, in and out.
 * - A day is a UTC day, YYYY-MM-DD.
 * - Data files are absolute paths in and out; engines keep them relative to the data folder.
 */

import type { RateLimiter } from '../limits/rate-limiter.js';

export interface Account {
  id: number;
  name: string;
}

export interface ApiKey {
  id: number;
  account: Account;
  readOnly: boolean;
  revoked: boolean;
  /** The web origins (`https://maps.example.org`) it may be used from; null when it is not limited to any. */
  origins: readonly string[] | null;
}

/** A key being added, besides its hash: never the key itself. */
export interface NewKey {
  /** Its first characters: enough to recognise it in a list, far too few to use it. */
  prefix: string;
  /** What it is for, as its owner put it; may be empty. */
  label: string;
  readOnly: boolean;
  /** As in ApiKey; a key with origins is read-only. */
  origins: readonly string[] | null;
}

/** A key as the list of its account's keys shows it: never the key or its hash. */
export interface KeyListing {
  /** Names the key to revoke it from its account's page; tells nothing about the key itself. */
  id: number;
  /** Null for a key made before prefixes were kept. */
  prefix: string | null;
  label: string;
  readOnly: boolean;
  origins: readonly string[] | null;
  /** ISO timestamps in UTC. */
  createdAt: string;
  /** Its latest download or publish; null when it has not been used. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface ColumnInfo {
  name: string;
  type: string;
}

/** A table's full-text index: the FTS table that indexes it (`content=` it, or itself). */
export interface FtsInfo {
  table: string;
  /** The indexed table's column the index's rowids are (FTS5's `content_rowid=`); absent: its rowid. */
  rowid?: string;
}

/**
 * A table or view of a data version, described at publish (scrapers/describe-tables.ts). Versions
 * published before views, `kind` and `fts` were kept list tables only, with neither.
 */
export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  /** Counted once, at publish. */
  rows: number;
  /** Absent: a table with a rowid. */
  kind?: 'view' | 'without-rowid';
  /** A view with more rows than were counted at publish: `rows` is a lower bound. */
  rowsCapped?: true;
  fts?: FtsInfo;
}

/** What is known about a scraper's current data, taken when it was added or published. */
export interface DataVersion {
  /** Absolute path of the SQLite file holding this version (kept relative to the data folder: src/store/data-paths.ts). */
  file: string;
  /** Increases by one at each publish. */
  version: number;
  tables: TableInfo[];
  sizeBytes: number;
  updatedAt: string;
}

export interface Scraper {
  id: number;
  owner: Account;
  name: string;
  description: string;
  isPrivate: boolean;
  data: DataVersion;
}

export interface NewScraper {
  ownerId: number;
  name: string;
  description: string;
  isPrivate: boolean;
  data: DataVersion;
}

export interface DownloadRecord {
  scraperId: number;
  accountId: number;
  keyId: number;
  /** When it ended, as an ISO timestamp in UTC (`toISOString()`): its first 10 characters are its day. */
  at: string;
  format: string;
  query: string | null;
  status: number;
  rows: number | null;
  bytes: number;
  durationMs: number;
}

export interface DownloadStats {
  total: number;
  by: { owner: string; count: number }[];
}

/** A scraper as the lists show it: the home and owner pages, `scraper list`. */
export interface ScraperListing {
  scraper: Scraper;
  downloads: number;
}

export interface ListScrapersOptions {
  /** Only this owner's scrapers (matched case-insensitively; none for a name holding U+0000). */
  owner?: string;
  /** Only scrapers whose owner, name or description contains this text, A–Z matching a–z; `%`, `_` and `\` are plain characters; a text holding U+0000 matches nothing (src/store/nul-text.ts). */
  search?: string;
  /** Private scrapers too: for the operator, never for pages. */
  includePrivate?: boolean;
  /** At most this many; all when absent. */
  limit?: number;
}

/** An account as `user list` shows it. */
export interface AccountListing {
  name: string;
  /** ISO timestamp in UTC. */
  createdAt: string;
  /** Keys that work; revoked ones are counted apart. */
  keys: number;
  revokedKeys: number;
  /** Its scrapers, private ones included. */
  scrapers: number;
}

/** What `scraper set` changes; what is absent stays as it is. */
export interface ScraperChanges {
  description?: string;
  isPrivate?: boolean;
}

/** Downloads on one UTC day, `day` as YYYY-MM-DD. */
export interface DayCount {
  day: string;
  count: number;
}

/** What an account may be created with besides its name. */
export interface AccountDetails {
  /** A password hash (src/accounts/passwords.ts); without one the account cannot sign in on the web. */
  passwordHash?: string;
  email?: string;
}

/** A session of a signed-in visitor, as stored: by the hash of its id, never the id. */
export interface SessionRecord {
  account: Account;
  /** ISO timestamps in UTC. */
  createdAt: string;
  expiresAt: string;
}

/** An account's own downloads of one scraper, one entry per UTC day. */
export interface AccountScraperDownloads {
  /** Owner and name as they are now; a removed scraper is still listed (the downloads happened). */
  owner: string;
  name: string;
  removed: boolean;
  total: number;
  perDay: DayCount[];
}

/** How far a node's spool of downloads (src/downloads/spool.ts) has been recorded: its first `recorded` entries. */
export interface SpoolProgress {
  spool: string;
  recorded: number;
}

export interface Store {
  /** Undefined when the name is taken (matched case-insensitively), whoever took it first. */
  createAccount(name: string, details?: AccountDetails): Promise<Account | undefined>;
  /** The account with its password hash (null when it has none), for signing in. */
  findLogin(name: string): Promise<{ account: Account; passwordHash: string | null } | undefined>;
  setPasswordHash(accountId: number, passwordHash: string): Promise<void>;
  findAccount(name: string): Promise<Account | undefined>;
  /** Every account, by name. */
  listAccounts(): Promise<AccountListing[]>;
  /** Stores a key by its hash; the key itself is never stored. */
  addKey(accountId: number, keyHash: string, key: NewKey): Promise<void>;
  /** The account's keys, oldest first, revoked ones included. */
  listKeys(accountId: number): Promise<KeyListing[]>;
  /**
   * Sees every change committed before the call, by any process (the CLI included): a key revoked
   * a moment ago is found revoked. Engines may cache lookups, but must drop them on any change: at
   * once for SQLite; for PostgreSQL, when its notification of the change arrives, milliseconds after
   * the commit (src/store/pg-changes.ts).
   */
  findKey(keyHash: string): Promise<ApiKey | undefined>;
  /** Returns false when no such key exists. */
  revokeKey(keyHash: string): Promise<boolean>;
  /** Revokes the account's key with this id (KeyListing.id); false when the account has no such key. */
  revokeAccountKey(accountId: number, keyId: number): Promise<boolean>;

  /**
   * Sessions, each stored by the hash of its id. findSession sees only sessions not yet expired at
   * `now`, so one past its end is refused even before the sweep removes it.
   */
  saveSession(idHash: string, session: { accountId: number; expiresAt: string }): Promise<void>;
  findSession(idHash: string, now: string): Promise<SessionRecord | undefined>;
  removeSession(idHash: string): Promise<void>;
  /** Every session of the account but `keep` (the one changing the password stays signed in). */
  removeAccountSessions(accountId: number, keep?: string): Promise<void>;
  /** Removes the sessions that ended before `now`; returns how many. */
  removeExpiredSessions(now: string): Promise<number>;
  /** A random secret shared by every server of this store, made at its first use: `make` gives it. */
  serverSecret(name: string, make: () => string): Promise<string>;

  addScraper(scraper: NewScraper): Promise<Scraper>;
  /** Sees every change committed before the call, by any process, as findKey does: new data is read at once. */
  findScraper(owner: string, name: string): Promise<Scraper | undefined>;
  /**
   * Points the scraper at new data, in one step; returns the data it replaced and the new version,
   * or undefined when the scraper was removed meanwhile (nothing is changed then).
   */
  replaceData(scraperId: number, data: Omit<DataVersion, 'version'>): Promise<{ replaced: DataVersion; current: DataVersion } | undefined>;
  /** Changes its description or visibility; seen by findScraper from the next call, in any process. Undefined when it was removed. */
  updateScraper(scraperId: number, changes: ScraperChanges): Promise<Scraper | undefined>;
  /**
   * From the next call on, in any process, the scraper is not found nor listed, and its name is free
   * for a new scraper. Its downloads stay recorded and counted in the totals (they happened), under
   * its id, which no other scraper will have. Returns false when it was already removed.
   */
  removeScraper(scraperId: number): Promise<boolean>;

  /**
   * Records downloads, counts them in the totals the four reads below use, and keeps each key's
   * last use (the latest `at` of its downloads), all in one step: when it throws, none of them was
   * recorded and the same records can be given again. `progress`, when given, is kept in the same step.
   */
  recordDownloads(downloads: readonly DownloadRecord[], progress?: SpoolProgress): Promise<void>;
  /** How many of the spool's entries are recorded (SpoolProgress); 0 for a spool never seen. */
  spoolRecorded(spool: string): Promise<number>;
  /** Forgets a spool that is fully recorded and removed. */
  forgetSpool(spool: string): Promise<void>;
  /** Keeps `at` as the key's last use unless it was used later. For uses that are not downloads (a publish). */
  recordKeyUse(keyId: number, at: string): Promise<void>;
  // Pages make these reads, so they read totals kept as downloads are recorded: their cost depends on
  // the number of scrapers, accounts and days, never on the number of downloads.
  downloadStats(scraperId: number): Promise<DownloadStats>;
  /** Public scrapers (private ones too when asked), most downloaded first, then most recently updated. */
  listScrapers(options: ListScrapersOptions): Promise<ScraperListing[]>;
  /** One entry per UTC day for the last `days` days, oldest first, ending today; days without downloads are 0. */
  downloadsPerDay(scraperId: number, days: number, now?: Date): Promise<DayCount[]>;
  /** The account's own downloads over the last `days` days, per scraper (most first) and UTC day, as downloadsPerDay. */
  accountDownloads(accountId: number, days: number, now?: Date): Promise<AccountScraperDownloads[]>;
  /**
   * Deletes the downloads recorded before `before` (an ISO timestamp in UTC) and returns how many.
   * The totals above keep counting them: pages and counts do not change. May take a while on many
   * downloads, but must not keep the server from recording new ones meanwhile.
   */
  pruneDownloads(before: string): Promise<number>;

  /**
   * A rate limiter whose counters every node of this store shares (PostgreSQL); absent when the
   * store is one machine's (SQLite), whose server counts in its own memory.
   */
  sharedRateLimiter?(perMinute: number): RateLimiter;

  close(): Promise<void>;
}
