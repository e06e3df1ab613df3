/**
 * The metadata store: accounts and keys, sessions, scrapers and their data versions, downloads, and
 * shared rate limits, one interface each; `Store` is all five, for callers that need several.
 * Handlers take the narrowest one they use. Two engines meet them (SQLite, src/store/sqlite/, and
 * PostgreSQL, src/store/pg/, one file per concern in each), and test/store-contract.test.ts runs the
 * same tests against both.
 *
 * What it means, whatever the engine:
 * - Names (of accounts and scrapers) match case-insensitively for the ASCII letters A–Z only; every
 *   other character matches itself. Account and scraper names are ASCII (src/scrapers/names.ts).
 * - Timestamps are ISO texts in UTC as `Date.prototype.toISOString()` writes them, in and out.
 * - A day is a UTC day, YYYY-MM-DD.
 * - Data files are absolute paths in and out; engines keep them relative to the data folder.
 */

import type { RateLimiter } from '../limits/rate-limiter.js';
import type {
  Account,
  AccountDetails,
  AccountListing,
  AccountScraperDownloads,
  ApiKey,
  DataVersion,
  DayCount,
  DownloadRecord,
  DownloadStats,
  KeyListing,
  ListScrapersOptions,
  NewKey,
  NewScraper,
  Retention,
  RetiredVersion,
  SavedQuery,
  SavedQueryFields,
  Scraper,
  ScraperChanges,
  ScraperListing,
  SessionRecord,
  SpoolProgress,
} from './records.js';

export type * from './records.js';

/** Accounts, their passwords, and their keys (each stored by its hash). */
export interface AccountStore {
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
   * the commit (src/store/pg/changes.ts).
   */
  findKey(keyHash: string): Promise<ApiKey | undefined>;
  /** Returns false when no such key exists. */
  revokeKey(keyHash: string): Promise<boolean>;
  /** Revokes the account's key with this id (KeyListing.id); false when the account has no such key. */
  revokeAccountKey(accountId: number, keyId: number): Promise<boolean>;
  /** Keeps `at` as the key's last use unless it was used later. For uses that are not downloads (a publish). */
  recordKeyUse(keyId: number, at: string): Promise<void>;
}

/**
 * Sessions of signed-in visitors, each stored by the hash of its id, and the secrets that sign their
 * cookies. findSession sees only sessions not yet expired at `now`, so one past its end is refused
 * even before the sweep removes it.
 */
export interface SessionStore {
  saveSession(idHash: string, session: { accountId: number; expiresAt: string }): Promise<void>;
  findSession(idHash: string, now: string): Promise<SessionRecord | undefined>;
  removeSession(idHash: string): Promise<void>;
  /** Every session of the account but `keep` (the one changing the password stays signed in). */
  removeAccountSessions(accountId: number, keep?: string): Promise<void>;
  /** Removes the sessions that ended before `now`; returns how many. */
  removeExpiredSessions(now: string): Promise<number>;
  /** A random secret shared by every server of this store, made at its first use: `make` gives it. */
  serverSecret(name: string, make: () => string): Promise<string>;
}

/** Scrapers and the data version each points at. */
export interface ScraperStore {
  addScraper(scraper: NewScraper): Promise<Scraper>;
  /** Sees every change committed before the call, by any process, as findKey does: new data is read at once. */
  findScraper(owner: string, name: string): Promise<Scraper | undefined>;
  /**
   * Points the scraper at new data and keeps it as its newest version, in one step; returns the data it replaced and the new version,
   * or undefined when the scraper was removed meanwhile (nothing is changed then).
   */
  replaceData(scraperId: number, data: Omit<DataVersion, 'version'>): Promise<{ replaced: DataVersion; current: DataVersion } | undefined>;
  /** Its versions still kept (the current one among them), newest first. */
  listVersions(scraperId: number): Promise<DataVersion[]>;
  /** The version with this id while it is kept; undefined once retired, or never published. */
  findVersion(scraperId: number, version: number): Promise<DataVersion | undefined>;
  /**
   * Retires, in one step, the kept versions that `keep` no longer keeps at `now` (never the current
   * one): from then on findVersion does not find them. Returns how many it retired.
   */
  retireVersions(scraperId: number, keep: Retention, now: string): Promise<number>;
  /** Its retired versions not yet forgotten, oldest first, each with when it was retired: its file goes some minutes after (src/scrapers/versions.ts). */
  retiredVersions(scraperId: number): Promise<RetiredVersion[]>;
  /** Forgets a retired version once its file is removed. */
  forgetVersion(scraperId: number, version: number): Promise<void>;
  /** Changes its description, visibility or retention; seen by findScraper from the next call, in any process. Undefined when it was removed. */
  updateScraper(scraperId: number, changes: ScraperChanges): Promise<Scraper | undefined>;
  /**
   * From the next call on, in any process, the scraper is not found nor listed, and its name is free
   * for a new scraper. Its downloads stay recorded and counted in the totals (they happened), under
   * its id, which no other scraper will have. Returns false when it was already removed.
   */
  removeScraper(scraperId: number): Promise<boolean>;
  /**
   * Public scrapers (private ones too when asked), most downloaded first, then most recently updated.
   * Reads the download totals DownloadStore keeps, as the reads there do.
   */
  listScrapers(options: ListScrapersOptions): Promise<ScraperListing[]>;
}

/** Downloads, the totals kept as they are recorded, and how far each node's spool is recorded. */
export interface DownloadStore {
  /**
   * Records downloads, counts them in the totals the reads below use, and keeps each key's last
   * use (the latest `at` of its downloads), all in one step: when it throws, none of them was
   * recorded and the same records can be given again. `progress`, when given, is kept in the same step.
   */
  recordDownloads(downloads: readonly DownloadRecord[], progress?: SpoolProgress): Promise<void>;
  /** How many of the spool's entries are recorded (SpoolProgress); 0 for a spool never seen. */
  spoolRecorded(spool: string): Promise<number>;
  /** Forgets a spool that is fully recorded and removed. */
  forgetSpool(spool: string): Promise<void>;
  // Pages make these reads, so they read totals kept as downloads are recorded: their cost depends on
  // the number of scrapers, accounts and days, never on the number of downloads.
  downloadStats(scraperId: number): Promise<DownloadStats>;
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
}

/** A scraper's saved queries. */
export interface SavedQueryStore {
  /**
   * Saves the query under its name, replacing the scraper's query of that name; undefined, nothing
   * saved, when the scraper already has `max` queries of other names (checked in the same statement).
   */
  saveQuery(scraperId: number, query: SavedQueryFields, max: number): Promise<SavedQuery | undefined>;
  findQuery(scraperId: number, name: string): Promise<SavedQuery | undefined>;
  /** By name; private ones only when asked (for the owner). */
  listQueries(scraperId: number, includePrivate: boolean): Promise<SavedQuery[]>;
  /** Whether there was one of that name to remove. */
  removeQuery(scraperId: number, name: string): Promise<boolean>;
}

export interface RateLimitStore {
  /**
   * A rate limiter whose counters every node of this store shares (PostgreSQL); absent when the
   * store is one machine's (SQLite), whose server counts in its own memory.
   */
  sharedRateLimiter?(perMinute: number): RateLimiter;
}

export interface Store extends AccountStore, SessionStore, ScraperStore, SavedQueryStore, DownloadStore, RateLimitStore {
  close(): Promise<void>;
}
