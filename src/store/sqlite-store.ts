import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import path from 'node:path';
import { absoluteDataPath, storedDataPath } from './data-paths.js';
import { holdsNul } from './nul-text.js';
import { scraperCacheKey } from './scraper-key.js';
import { migrate } from './sqlite-schema.js';
import { everyDay, lastDays } from './day-counts.js';
import { SqliteWebAccounts } from './sqlite-web-accounts.js';
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
  Scraper,
  ScraperChanges,
  ScraperListing,
  SessionRecord,
  SpoolProgress,
  Store,
} from './types.js';

interface ScraperRow {
  id: number;
  owner_id: number;
  owner_name: string;
  name: string;
  description: string;
  private: number;
  data_file: string;
  data_version: number;
  tables_json: string;
  size_bytes: number;
  updated_at: string;
}

const scraperSelect = `
  select s.id, s.owner_id, a.name as owner_name, s.name, s.description, s.private,
         s.data_file, s.data_version, s.tables_json, s.size_bytes, s.updated_at
  from scrapers s join accounts a on a.id = s.owner_id`;

function toScraper(row: ScraperRow, dataDir: string): Scraper {
  return {
    id: row.id,
    owner: { id: row.owner_id, name: row.owner_name },
    name: row.name,
    description: row.description,
    isPrivate: row.private === 1,
    data: {
      file: absoluteDataPath(dataDir, row.data_file),
      version: row.data_version,
      tables: JSON.parse(row.tables_json),
      sizeBytes: row.size_bytes,
      updatedAt: row.updated_at,
    },
  };
}

const originsJson = (origins: readonly string[] | null) => (origins === null ? null : JSON.stringify(origins));
const parseOrigins = (json: string | null): readonly string[] | null => (json === null ? null : (JSON.parse(json) as string[]));

/** Downloads deleted per transaction by pruneDownloads. */
const pruneSliceIds = 10_000;

/** Keys and scrapers kept in memory each; the least recently used are dropped beyond this. */
const cachedLookups = 10_000;

/**
 * The default store: one SQLite file in WAL mode, opened by the server and the CLI at the same time.
 *
 * Key and scraper lookups are cached in memory and the cache is dropped whenever the file may have
 * changed: on any write through this store, and when `PRAGMA data_version` says another connection
 * (the CLI, say) has committed. That check is made before a cached lookup, at most once per turn of
 * the event loop, so a key revoked from the CLI is refused from the next turn on.
 *
 * Writes are synchronous commits; with WAL and synchronous=NORMAL a commit survives the process
 * being killed (only a power loss can take the last commits).
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  /** Prepared once: preparing was ~14% of the main thread's time per small query (bench). */
  private readonly statements = new Map<string, Database.Statement>();
  /** Changes only when another connection commits. */
  private readonly dataVersion: Database.Statement;
  private seenDataVersion: unknown;
  private versionSeenThisTurn = false;
  private readonly keys = new LRUCache<string, ApiKey>({ max: cachedLookups });
  private readonly scrapers = new LRUCache<string, Scraper>({ max: cachedLookups });
  private readonly web: SqliteWebAccounts;

  /** `dataDir`: the folder data files are kept relative to; siphon.db's own folder unless told. */
  constructor(
    file: string,
    private readonly dataDir = path.dirname(path.resolve(file)),
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // Off while migrating (see migrate); better-sqlite3 builds SQLite with them on by default.
    this.db.pragma('foreign_keys = OFF');
    migrate(this.db, this.dataDir);
    this.db.pragma('foreign_keys = ON');
    this.dataVersion = this.db.prepare('pragma data_version').pluck();
    this.seenDataVersion = this.dataVersion.get();
    this.web = new SqliteWebAccounts(this.db, (sql) => this.stmt(sql));
  }

  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Drops the cached lookups if another connection has committed since the last look, looking once
   * per turn of the event loop: a look is a read transaction, two fcntl calls on the WAL's shared
   * memory, and one before each of a request's two lookups cost a 304 ~25 µs of its ~220 of CPU;
   * under the bench's load one turn serves ~20 requests. A commit is seen from
   * the next turn on.
   */
  private dropStaleLookups(): void {
    if (this.versionSeenThisTurn) return;
    this.versionSeenThisTurn = true;
    setImmediate(() => {
      this.versionSeenThisTurn = false;
    });
    const version = this.dataVersion.get();
    if (version === this.seenDataVersion) return;
    this.seenDataVersion = version;
    this.dropLookups();
  }

  private dropLookups(): void {
    this.keys.clear();
    this.scrapers.clear();
  }

  /** A write that may change what a lookup returns: the cached lookups are dropped once it is done. */
  private change<T>(write: () => T): T {
    try {
      return write();
    } finally {
      this.dropLookups();
    }
  }

  async createAccount(name: string, details: AccountDetails = {}): Promise<Account | undefined> {
    const now = new Date().toISOString();
    // The unique name decides between two sign-ups of one name at the same moment.
    const info = this.change(() =>
      this.stmt(
        `
      insert into accounts (name, created_at, password_hash, email) values (?, ?, ?, ?) on conflict do nothing`,
      ).run(name, now, details.passwordHash ?? null, details.email ?? null),
    );
    return info.changes === 0 ? undefined : { id: Number(info.lastInsertRowid), name };
  }

  async findLogin(name: string): Promise<{ account: Account; passwordHash: string | null } | undefined> {
    return this.web.findLogin(name);
  }

  async setPasswordHash(accountId: number, passwordHash: string): Promise<void> {
    this.web.setPasswordHash(accountId, passwordHash);
  }

  async findAccount(name: string): Promise<Account | undefined> {
    return this.stmt('select id, name from accounts where name = ?').get(name) as Account | undefined;
  }

  async listAccounts(): Promise<AccountListing[]> {
    const rows = this.stmt(
      `
      select a.name, a.created_at,
             (select count(*) from api_keys k where k.account_id = a.id and k.revoked_at is null) as keys,
             (select count(*) from api_keys k where k.account_id = a.id and k.revoked_at is not null) as revoked_keys,
             (select count(*) from scrapers s where s.owner_id = a.id and s.removed_at is null) as scrapers
      from accounts a order by a.name`,
    ).all() as { name: string; created_at: string; keys: number; revoked_keys: number; scrapers: number }[];
    return rows.map((r) => ({ name: r.name, createdAt: r.created_at, keys: r.keys, revokedKeys: r.revoked_keys, scrapers: r.scrapers }));
  }

  async addKey(accountId: number, keyHash: string, key: NewKey): Promise<void> {
    this.change(() =>
      this.stmt(
        `
      insert into api_keys (account_id, hash, prefix, label, read_only, origins_json, created_at)
      values (?, ?, ?, ?, ?, ?, ?)`,
      ).run(accountId, keyHash, key.prefix, key.label, key.readOnly ? 1 : 0, originsJson(key.origins), new Date().toISOString()),
    );
  }

  async listKeys(accountId: number): Promise<KeyListing[]> {
    const rows = this.stmt(
      `
      select id, prefix, label, read_only, origins_json, created_at, last_used_at, revoked_at
      from api_keys where account_id = ? order by id`,
    ).all(accountId) as {
      id: number;
      prefix: string | null;
      label: string;
      read_only: number;
      origins_json: string | null;
      created_at: string;
      last_used_at: string | null;
      revoked_at: string | null;
    }[];
    return rows.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      label: row.label,
      readOnly: row.read_only === 1,
      origins: parseOrigins(row.origins_json),
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
    }));
  }

  // Misses are not cached: a stream of made-up keys would otherwise push the real ones out.
  async findKey(keyHash: string): Promise<ApiKey | undefined> {
    this.dropStaleLookups();
    const cached = this.keys.get(keyHash);
    if (cached) return cached;
    const row = this.stmt(
      `
      select k.id, k.read_only, k.revoked_at, k.origins_json, a.id as account_id, a.name as account_name
      from api_keys k join accounts a on a.id = k.account_id where k.hash = ?`,
    ).get(keyHash) as
      | { id: number; read_only: number; revoked_at: string | null; origins_json: string | null; account_id: number; account_name: string }
      | undefined;
    if (!row) return undefined;
    const key: ApiKey = {
      id: row.id,
      account: { id: row.account_id, name: row.account_name },
      readOnly: row.read_only === 1,
      revoked: row.revoked_at !== null,
      origins: parseOrigins(row.origins_json),
    };
    this.keys.set(keyHash, key);
    return key;
  }

  async revokeKey(keyHash: string): Promise<boolean> {
    const info = this.change(() =>
      this.stmt('update api_keys set revoked_at = coalesce(revoked_at, ?) where hash = ?').run(new Date().toISOString(), keyHash),
    );
    return info.changes > 0;
  }

  async revokeAccountKey(accountId: number, keyId: number): Promise<boolean> {
    const info = this.change(() =>
      this.stmt('update api_keys set revoked_at = coalesce(revoked_at, ?) where id = ? and account_id = ?').run(
        new Date().toISOString(),
        keyId,
        accountId,
      ),
    );
    return info.changes > 0;
  }

  async saveSession(idHash: string, session: { accountId: number; expiresAt: string }): Promise<void> {
    this.web.saveSession(idHash, session);
  }

  async findSession(idHash: string, now: string): Promise<SessionRecord | undefined> {
    return this.web.findSession(idHash, now);
  }

  async removeSession(idHash: string): Promise<void> {
    this.web.removeSession(idHash);
  }

  async removeAccountSessions(accountId: number, keep?: string): Promise<void> {
    this.web.removeAccountSessions(accountId, keep);
  }

  async removeExpiredSessions(now: string): Promise<number> {
    return this.web.removeExpiredSessions(now);
  }

  async serverSecret(name: string, make: () => string): Promise<string> {
    return this.web.serverSecret(name, make);
  }

  async addScraper(s: NewScraper): Promise<Scraper> {
    const now = new Date().toISOString();
    const info = this.change(() =>
      this.stmt(
        `
      insert into scrapers (owner_id, name, description, private, data_file, data_version, tables_json,
                            size_bytes, created_at, updated_at)
      values (?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
      ).run(
        s.ownerId,
        s.name,
        s.description,
        s.isPrivate ? 1 : 0,
        storedDataPath(this.dataDir, s.data.file),
        JSON.stringify(s.data.tables),
        s.data.sizeBytes,
        now,
        s.data.updatedAt,
      ),
    );
    return toScraper(this.stmt(`${scraperSelect} where s.id = ?`).get(info.lastInsertRowid) as ScraperRow, this.dataDir);
  }

  // Misses are not cached, as for keys.
  async findScraper(owner: string, name: string): Promise<Scraper | undefined> {
    this.dropStaleLookups();
    const cacheKey = scraperCacheKey(owner, name);
    const cached = this.scrapers.get(cacheKey);
    if (cached) return cached;
    const row = this.stmt(`${scraperSelect} where a.name = ? and s.name = ? and s.removed_at is null`).get(owner, name) as
      ScraperRow | undefined;
    if (!row) return undefined;
    const scraper = toScraper(row, this.dataDir);
    this.scrapers.set(cacheKey, scraper);
    return scraper;
  }

  /** The scraper by id, unless it was removed. */
  private liveScraper(scraperId: number): Scraper | undefined {
    const row = this.stmt(`${scraperSelect} where s.id = ? and s.removed_at is null`).get(scraperId) as ScraperRow | undefined;
    return row && toScraper(row, this.dataDir);
  }

  async replaceData(
    scraperId: number,
    data: Omit<DataVersion, 'version'>,
  ): Promise<{ replaced: DataVersion; current: DataVersion } | undefined> {
    const swap = this.db.transaction(() => {
      const replaced = this.liveScraper(scraperId)?.data;
      if (!replaced) return undefined;
      this.stmt(
        `
        update scrapers set data_file = ?, data_version = data_version + 1, tables_json = ?, size_bytes = ?,
                            updated_at = ? where id = ?`,
      ).run(storedDataPath(this.dataDir, data.file), JSON.stringify(data.tables), data.sizeBytes, data.updatedAt, scraperId);
      return { replaced, current: { ...data, version: replaced.version + 1 } };
    });
    return this.change(() => swap.immediate());
  }

  async updateScraper(scraperId: number, changes: ScraperChanges): Promise<Scraper | undefined> {
    const update = this.db.transaction(() => {
      const scraper = this.liveScraper(scraperId);
      if (!scraper) return undefined;
      const description = changes.description ?? scraper.description;
      const isPrivate = changes.isPrivate ?? scraper.isPrivate;
      this.stmt('update scrapers set description = ?, private = ? where id = ?').run(description, isPrivate ? 1 : 0, scraperId);
      return { ...scraper, description, isPrivate };
    });
    return this.change(() => update.immediate());
  }

  async removeScraper(scraperId: number): Promise<boolean> {
    const info = this.change(() =>
      this.stmt('update scrapers set removed_at = ? where id = ? and removed_at is null').run(new Date().toISOString(), scraperId),
    );
    return info.changes > 0;
  }

  // A key's last use is not part of its lookup, so the cached lookups stay.
  private keyUse(): Database.Statement {
    return this.stmt('update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)');
  }

  async recordKeyUse(keyId: number, at: string): Promise<void> {
    this.keyUse().run(at, keyId, at);
  }

  // Downloads change no key lookup or scraper, so the cached lookups stay.
  async recordDownloads(records: readonly DownloadRecord[], progress?: SpoolProgress): Promise<void> {
    const insert = this.stmt(`
      insert into downloads (scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
      values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const countByAccount = this.stmt(`
      insert into download_totals (scraper_id, account_id, count) values (?, ?, ?)
      on conflict do update set count = count + excluded.count`);
    const countByDay = this.stmt(`
      insert into download_days (scraper_id, day, count) values (?, ?, ?)
      on conflict do update set count = count + excluded.count`);
    // The counters are added up for the batch first: one update per scraper and account, per
    // scraper and day, and per key (its latest download), not three per download. The UTC day is
    // cut from `at` as the migration that made these tables cut it; ISO timestamps in UTC compare
    // as text in time order.
    const byAccount = new Map<string, { scraperId: number; accountId: number; count: number }>();
    const byDay = new Map<string, { scraperId: number; day: string; count: number }>();
    const byAccountDay = new Map<string, { accountId: number; scraperId: number; day: string; count: number }>();
    const lastUse = new Map<number, string>();
    const bump = <T extends { count: number }>(map: Map<string, T>, key: string, fresh: () => T) => {
      const entry = map.get(key);
      if (entry) entry.count += 1;
      else map.set(key, fresh());
    };
    for (const d of records) {
      const day = d.at.slice(0, 10);
      bump(byAccount, `${d.scraperId} ${d.accountId}`, () => ({ scraperId: d.scraperId, accountId: d.accountId, count: 1 }));
      bump(byDay, `${d.scraperId} ${day}`, () => ({ scraperId: d.scraperId, day, count: 1 }));
      bump(byAccountDay, `${d.accountId} ${d.scraperId} ${day}`, () => ({ accountId: d.accountId, scraperId: d.scraperId, day, count: 1 }));
      const latest = lastUse.get(d.keyId);
      if (latest === undefined || latest < d.at) lastUse.set(d.keyId, d.at);
    }
    const keyUse = this.keyUse();
    this.db.transaction(() => {
      for (const d of records) {
        insert.run(d.scraperId, d.accountId, d.keyId, d.at, d.format, d.query, d.status, d.rows, d.bytes, d.durationMs);
      }
      for (const c of byAccount.values()) countByAccount.run(c.scraperId, c.accountId, c.count);
      for (const c of byDay.values()) countByDay.run(c.scraperId, c.day, c.count);
      for (const c of byAccountDay.values()) this.web.countDownloads(c.accountId, c.scraperId, c.day, c.count);
      for (const [keyId, at] of lastUse) keyUse.run(at, keyId, at);
      if (progress) {
        this.stmt('insert into download_spools (name, recorded) values (?, ?) on conflict do update set recorded = excluded.recorded').run(
          progress.spool,
          progress.recorded,
        );
      }
    })();
  }

  async spoolRecorded(spool: string): Promise<number> {
    return (this.stmt('select recorded from download_spools where name = ?').pluck().get(spool) as number | undefined) ?? 0;
  }

  async forgetSpool(spool: string): Promise<void> {
    this.stmt('delete from download_spools where name = ?').run(spool);
  }

  async downloadStats(scraperId: number): Promise<DownloadStats> {
    const by = this.stmt(
      `
      select a.name as owner, t.count from download_totals t join accounts a on a.id = t.account_id
      where t.scraper_id = ? order by t.count desc, a.name`,
    ).all(scraperId) as { owner: string; count: number }[];
    return { total: by.reduce((sum, b) => sum + b.count, 0), by };
  }

  async listScrapers(options: ListScrapersOptions): Promise<ScraperListing[]> {
    if (holdsNul(options.owner, options.search)) return [];
    const where = ['s.removed_at is null'];
    if (!options.includePrivate) where.push('s.private = 0');
    const params: (string | number)[] = [];
    if (options.owner !== undefined) {
      where.push('a.name = ?');
      params.push(options.owner);
    }
    if (options.search) {
      // LIKE wildcards in the search text are matched literally.
      const pattern = `%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push("(a.name like ? escape '\\' or s.name like ? escape '\\' or s.description like ? escape '\\')");
      params.push(pattern, pattern, pattern);
    }
    const rows = this.stmt(
      `
      select * from (
        select scraper.*, (select coalesce(sum(t.count), 0) from download_totals t where t.scraper_id = scraper.id) as downloads
        from (${scraperSelect} where ${where.join(' and ')}) scraper)
      order by downloads desc, updated_at desc, owner_name, name limit ?`,
    ).all(...params, options.limit ?? -1) as (ScraperRow & { downloads: number })[];
    return rows.map((row) => ({ scraper: toScraper(row, this.dataDir), downloads: row.downloads }));
  }

  async downloadsPerDay(scraperId: number, days: number, now = new Date()): Promise<DayCount[]> {
    const span = lastDays(days, now);
    const counts = new Map(
      (this.stmt('select day, count from download_days where scraper_id = ? and day >= ?').all(scraperId, span[0]) as DayCount[]).map(
        (d) => [d.day, d.count],
      ),
    );
    return everyDay(span, counts);
  }

  async accountDownloads(accountId: number, days: number, now = new Date()): Promise<AccountScraperDownloads[]> {
    return this.web.accountDownloads(accountId, days, now);
  }

  async pruneDownloads(before: string): Promise<number> {
    const { first, last } = this.stmt('select min(id) as first, max(id) as last from downloads').get() as {
      first: number | null;
      last: number | null;
    };
    if (first === null || last === null) return 0;
    // In slices of ids (the rowid: no index on `at` is needed), one transaction each, so the
    // server's batches of downloads are written between them rather than wait for the whole prune.
    const slice = this.stmt('delete from downloads where id >= ? and id < ? and at < ?');
    let pruned = 0;
    for (let from = first; from <= last; from += pruneSliceIds) {
      pruned += slice.run(from, from + pruneSliceIds, before).changes;
    }
    return pruned;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
