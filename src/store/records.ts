/** What the store keeps and gives back, whatever the engine (src/store/types.ts says what it means). */
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
  /** As declared (`''` for none). */
  type: string;
  /** Never NULL: declared NOT NULL, or the table's INTEGER PRIMARY KEY (its rowid). Absent: it may be, or a version described before this was known. */
  notNull?: true;
  /** A generated column (`AS (…)`): `select *` returns it, `PRAGMA table_info` does not list it. */
  generated?: true;
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

/** What is known about a version of a scraper's data, taken when it was added or published. */
export interface DataVersion {
  /** Absolute path of the SQLite file holding this version (kept relative to the data folder: src/store/data-paths.ts). */
  file: string;
  /** Its id: 1 for the data a scraper was added with, one more at each publish. */
  version: number;
  tables: TableInfo[];
  sizeBytes: number;
  /** When it was published. */
  updatedAt: string;
}

/** A version no longer kept, whose file is still on disk. */
export interface RetiredVersion extends DataVersion {
  retiredAt: string;
}

/**
 * How many of a scraper's data versions are kept: those of its last `versions` publishes, and of
 * those, with `days` above 0, the ones published less than `days` days ago. The current one is always kept.
 */
export interface Retention {
  versions: number;
  days: number;
}

/** A scraper's own choice of retention (its owner's); null: the operator's default. */
export interface KeepChoice {
  versions: number | null;
  days: number | null;
}

export interface Scraper {
  id: number;
  owner: Account;
  name: string;
  description: string;
  isPrivate: boolean;
  data: DataVersion;
  keep: KeepChoice;
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

/**
 * A query a scraper's owner saved: its `name` (a slug, unique in the scraper) names its page and data
 * URLs (`/<owner>/<scraper>/queries/<name>`), its SQL may use `:named` parameters, and a private one
 * is shown to its owner only.
 */
export interface SavedQuery {
  scraperId: number;
  name: string;
  title: string;
  description: string;
  sql: string;
  isPrivate: boolean;
  /** When it was last saved, an ISO timestamp in UTC. */
  updatedAt: string;
}

export type SavedQueryFields = Omit<SavedQuery, 'scraperId' | 'updatedAt'>;

/** What `scraper set` changes; what is absent stays as it is. */
export interface ScraperChanges {
  description?: string;
  isPrivate?: boolean;
  keep?: Partial<KeepChoice>;
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
