import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { PgRateLimiter } from './pg-rate-limiter.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { absoluteDataPath, storedDataPath } from './data-paths.js';
import { everyDay, lastDays } from './day-counts.js';
import { ChangeFeed } from './pg-changes.js';
import { holdsNul } from './nul-text.js';
import { scraperCacheKey } from './scraper-key.js';
import { inTransaction, storableText, StorePool } from './pg-pool.js';
import { migrate } from './pg-schema.js';
import { PgWebAccounts } from './pg-web-accounts.js';
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
  private: boolean;
  data_file: string;
  data_version: number;
  tables: DataVersion['tables'];
  size_bytes: number;
  updated_at: string;
}

const scraperSelect = `
  select s.id, s.owner_id, a.name as owner_name, s.name, s.description, s.private,
         s.data_file, s.data_version, s.tables, s.size_bytes, s.updated_at
  from scrapers s join accounts a on a.id = s.owner_id`;

/** Keys and scrapers kept in memory each, as the SQLite store does. */
const cachedLookups = 10_000;
/** Downloads deleted per statement by pruneDownloads, so that recording goes on between them. */
const pruneSlice = 10_000;

// The statements run at every request are prepared once per connection (named), the rest as they come.
const findKeySql = {
  name: 'find-key',
  text: `select k.id, k.read_only, k.revoked_at, k.origins, a.id as account_id, a.name as account_name
         from api_keys k join accounts a on a.id = k.account_id where k.hash = $1`,
};
const findScraperSql = {
  name: 'find-scraper',
  text: `${scraperSelect} where siphon_fold(a.name) = siphon_fold($1) and siphon_fold(s.name) = siphon_fold($2) and s.removed_at is null`,
};

/**
 * Records a batch of downloads and counts them in every total, in one statement (so in one step),
 * whatever the batch's size. Each total is added to by one upsert of the batch's counts, in key
 * order, so two nodes recording at once lock rows in the same order.
 */
const recordDownloadsSql = {
  name: 'record-downloads',
  text: `
  with batch as (
    select * from unnest($1::int[], $2::int[], $3::int[], $4::timestamptz[], $5::text[], $6::text[], $7::int[], $8::int[],
                         $9::bigint[], $10::float8[])
      as b(scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
  ), recorded as (
    insert into downloads (scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
    select * from batch
  ), totals as (
    insert into download_totals as t (scraper_id, account_id, count)
    select scraper_id, account_id, count(*) from batch group by 1, 2 order by 1, 2
    on conflict (scraper_id, account_id) do update set count = t.count + excluded.count
  ), days as (
    insert into download_days as t (scraper_id, day, count)
    select scraper_id, (at at time zone 'UTC')::date, count(*) from batch group by 1, 2 order by 1, 2
    on conflict (scraper_id, day) do update set count = t.count + excluded.count
  ), account_days as (
    insert into download_account_days as t (account_id, scraper_id, day, count)
    select account_id, scraper_id, (at at time zone 'UTC')::date, count(*) from batch group by 1, 2, 3 order by 1, 2, 3
    on conflict (account_id, day, scraper_id) do update set count = t.count + excluded.count
  ), key_uses as (
    update api_keys k set last_used_at = used.at
    from (select key_id, max(at) as at from batch group by key_id order by key_id) used
    where k.id = used.key_id and (k.last_used_at is null or k.last_used_at < used.at)
  ), spool as (
    insert into download_spools (name, recorded) select $11::text, $12::bigint where $11::text is not null
    on conflict (name) do update set recorded = excluded.recorded
  )
  select 1`,
};

/**
 * The store in a PostgreSQL database, shared by several Siphon nodes (docs/scaling.md). It means
 * what the SQLite store means (src/store/types.ts; test/store-contract.test.ts runs both).
 *
 * Key and scraper look-ups are cached in memory as the SQLite store caches them; every node drops
 * its cache when any node or command changes a key, account or scraper, told by the ChangeFeed, and
 * caches nothing while it cannot be told.
 */
export class PgStore implements Store {
  private readonly keys = new LRUCache<string, ApiKey>({ max: cachedLookups });
  private readonly scrapers = new LRUCache<string, Scraper>({ max: cachedLookups });
  private readonly feed: ChangeFeed;
  private readonly web: PgWebAccounts;

  private constructor(
    private readonly pool: StorePool,
    connectionString: string,
    private readonly dataDir: string,
  ) {
    this.feed = new ChangeFeed(connectionString, () => this.dropLookups());
    this.web = new PgWebAccounts(pool);
  }

  /**
   * Connects, brings the schema up to date (once, however many nodes start at once) and starts
   * listening for other nodes' changes. `connections`: the most it holds open at once.
   */
  static async open(connectionString: string, dataDir: string, connections = 10): Promise<PgStore> {
    const pool = new StorePool(connectionString, connections);
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
    } catch (err) {
      await pool.end();
      throw err;
    }
    const store = new PgStore(pool, connectionString, dataDir);
    await store.feed.start();
    return store;
  }

  private dropLookups(): void {
    this.keys.clear();
    this.scrapers.clear();
  }

  /** A write that may change what a look-up returns: this node's cache is dropped at once (others are told by the feed). */
  private async change<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.dropLookups();
    }
  }

  /** A look-up through `cache`: what it read is kept only if no change came meanwhile and changes are heard. */
  private async cachedLookup<T extends NonNullable<unknown>>(
    cache: LRUCache<string, T>,
    key: string,
    read: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    if (this.feed.listening) {
      const cached = cache.get(key);
      if (cached) return cached;
    }
    const generation = this.feed.generation;
    const found = await read();
    // Misses are not cached: a stream of made-up keys would otherwise push the real ones out.
    if (found !== undefined && this.feed.listening && this.feed.generation === generation) cache.set(key, found);
    return found;
  }

  private toScraper(row: ScraperRow): Scraper {
    return {
      id: row.id,
      owner: { id: row.owner_id, name: row.owner_name },
      name: row.name,
      description: row.description,
      isPrivate: row.private,
      data: {
        file: absoluteDataPath(this.dataDir, row.data_file),
        version: row.data_version,
        tables: row.tables,
        sizeBytes: row.size_bytes,
        updatedAt: row.updated_at,
      },
    };
  }

  async createAccount(name: string, details: AccountDetails = {}): Promise<Account | undefined> {
    // The unique index on the folded name decides between two sign-ups of one name at the same moment.
    const { rows } = await this.pool.query<{ id: number }>(
      `
      insert into accounts (name, created_at, password_hash, email) values ($1, $2, $3, $4) on conflict do nothing returning id`,
      [name, new Date().toISOString(), details.passwordHash ?? null, details.email ?? null],
    );
    return rows[0] && { id: rows[0].id, name };
  }

  async findLogin(name: string): Promise<{ account: Account; passwordHash: string | null } | undefined> {
    return this.web.findLogin(name);
  }

  async setPasswordHash(accountId: number, passwordHash: string): Promise<void> {
    await this.web.setPasswordHash(accountId, passwordHash);
  }

  async findAccount(name: string): Promise<Account | undefined> {
    if (holdsNul(name)) return undefined;
    const { rows } = await this.pool.query<Account>('select id, name from accounts where siphon_fold(name) = siphon_fold($1)', [name]);
    return rows[0];
  }

  async listAccounts(): Promise<AccountListing[]> {
    const { rows } = await this.pool.query<{ name: string; created_at: string; keys: number; revoked_keys: number; scrapers: number }>(`
      select a.name, a.created_at,
             (select count(*) from api_keys k where k.account_id = a.id and k.revoked_at is null) as keys,
             (select count(*) from api_keys k where k.account_id = a.id and k.revoked_at is not null) as revoked_keys,
             (select count(*) from scrapers s where s.owner_id = a.id and s.removed_at is null) as scrapers
      from accounts a order by siphon_fold(a.name), a.name`);
    return rows.map((r) => ({ name: r.name, createdAt: r.created_at, keys: r.keys, revokedKeys: r.revoked_keys, scrapers: r.scrapers }));
  }

  async addKey(accountId: number, keyHash: string, key: NewKey): Promise<void> {
    await this.change(() =>
      this.pool.query(
        `
      insert into api_keys (account_id, hash, prefix, label, read_only, origins, created_at) values ($1, $2, $3, $4, $5, $6, $7)`,
        [accountId, keyHash, key.prefix, key.label, key.readOnly, key.origins, new Date().toISOString()],
      ),
    );
  }

  async listKeys(accountId: number): Promise<KeyListing[]> {
    const { rows } = await this.pool.query<{
      id: number;
      prefix: string | null;
      label: string;
      read_only: boolean;
      origins: string[] | null;
      created_at: string;
      last_used_at: string | null;
      revoked_at: string | null;
    }>(
      `select id, prefix, label, read_only, origins, created_at, last_used_at, revoked_at from api_keys where account_id = $1 order by id`,
      [accountId],
    );
    return rows.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      label: row.label,
      readOnly: row.read_only,
      origins: row.origins,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
    }));
  }

  async findKey(keyHash: string): Promise<ApiKey | undefined> {
    return this.cachedLookup(this.keys, keyHash, async () => {
      const { rows } = await this.pool.query<{
        id: number;
        read_only: boolean;
        revoked_at: string | null;
        origins: string[] | null;
        account_id: number;
        account_name: string;
      }>({ ...findKeySql, values: [keyHash] });
      const row = rows[0];
      return (
        row && {
          id: row.id,
          account: { id: row.account_id, name: row.account_name },
          readOnly: row.read_only,
          revoked: row.revoked_at !== null,
          origins: row.origins,
        }
      );
    });
  }

  async revokeKey(keyHash: string): Promise<boolean> {
    const { rowCount } = await this.change(() =>
      this.pool.query('update api_keys set revoked_at = coalesce(revoked_at, $1) where hash = $2', [new Date().toISOString(), keyHash]),
    );
    return (rowCount ?? 0) > 0;
  }

  async revokeAccountKey(accountId: number, keyId: number): Promise<boolean> {
    const { rowCount } = await this.change(() =>
      this.pool.query('update api_keys set revoked_at = coalesce(revoked_at, $1) where id = $2 and account_id = $3', [
        new Date().toISOString(),
        keyId,
        accountId,
      ]),
    );
    return (rowCount ?? 0) > 0;
  }

  async saveSession(idHash: string, session: { accountId: number; expiresAt: string }): Promise<void> {
    await this.web.saveSession(idHash, session);
  }

  async findSession(idHash: string, now: string): Promise<SessionRecord | undefined> {
    return this.web.findSession(idHash, now);
  }

  async removeSession(idHash: string): Promise<void> {
    await this.web.removeSession(idHash);
  }

  async removeAccountSessions(accountId: number, keep?: string): Promise<void> {
    await this.web.removeAccountSessions(accountId, keep);
  }

  async removeExpiredSessions(now: string): Promise<number> {
    return this.web.removeExpiredSessions(now);
  }

  async serverSecret(name: string, make: () => string): Promise<string> {
    return this.web.serverSecret(name, make);
  }

  async addScraper(s: NewScraper): Promise<Scraper> {
    const { rows } = await this.change(() =>
      this.pool.query<ScraperRow>(
        `
      with added as (
        insert into scrapers (owner_id, name, description, private, data_file, data_version, tables, size_bytes, created_at, updated_at)
        values ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9) returning *)
      select s.id, s.owner_id, a.name as owner_name, s.name, s.description, s.private,
             s.data_file, s.data_version, s.tables, s.size_bytes, s.updated_at
      from added s join accounts a on a.id = s.owner_id`,
        [
          s.ownerId,
          s.name,
          s.description,
          s.isPrivate,
          storedDataPath(this.dataDir, s.data.file),
          JSON.stringify(s.data.tables),
          s.data.sizeBytes,
          new Date().toISOString(),
          s.data.updatedAt,
        ],
      ),
    );
    return this.toScraper(rows[0]!);
  }

  async findScraper(owner: string, name: string): Promise<Scraper | undefined> {
    if (holdsNul(owner, name)) return undefined;
    return this.cachedLookup(this.scrapers, scraperCacheKey(owner, name), async () => {
      const { rows } = await this.pool.query<ScraperRow>({ ...findScraperSql, values: [owner, name] });
      return rows[0] && this.toScraper(rows[0]);
    });
  }

  /** The scraper by id unless it was removed, its row locked until the transaction ends. */
  private async lockLiveScraper(client: pg.PoolClient, scraperId: number): Promise<Scraper | undefined> {
    const { rows } = await client.query<ScraperRow>(`${scraperSelect} where s.id = $1 and s.removed_at is null for update of s`, [
      scraperId,
    ]);
    return rows[0] && this.toScraper(rows[0]);
  }

  async replaceData(
    scraperId: number,
    data: Omit<DataVersion, 'version'>,
  ): Promise<{ replaced: DataVersion; current: DataVersion } | undefined> {
    return this.change(() =>
      inTransaction(this.pool, async (client) => {
        const replaced = (await this.lockLiveScraper(client, scraperId))?.data;
        if (!replaced) return undefined;
        await client.query(
          'update scrapers set data_file = $1, data_version = data_version + 1, tables = $2, size_bytes = $3, updated_at = $4 where id = $5',
          [storedDataPath(this.dataDir, data.file), JSON.stringify(data.tables), data.sizeBytes, data.updatedAt, scraperId],
        );
        return { replaced, current: { ...data, version: replaced.version + 1 } };
      }),
    );
  }

  async updateScraper(scraperId: number, changes: ScraperChanges): Promise<Scraper | undefined> {
    return this.change(() =>
      inTransaction(this.pool, async (client) => {
        const scraper = await this.lockLiveScraper(client, scraperId);
        if (!scraper) return undefined;
        const description = changes.description ?? scraper.description;
        const isPrivate = changes.isPrivate ?? scraper.isPrivate;
        await client.query('update scrapers set description = $1, private = $2 where id = $3', [description, isPrivate, scraperId]);
        return { ...scraper, description, isPrivate };
      }),
    );
  }

  async removeScraper(scraperId: number): Promise<boolean> {
    const { rowCount } = await this.change(() =>
      this.pool.query('update scrapers set removed_at = $1 where id = $2 and removed_at is null', [new Date().toISOString(), scraperId]),
    );
    return (rowCount ?? 0) > 0;
  }

  async recordKeyUse(keyId: number, at: string): Promise<void> {
    await this.pool.query('update api_keys set last_used_at = $1 where id = $2 and (last_used_at is null or last_used_at < $1)', [
      at,
      keyId,
    ]);
  }

  async recordDownloads(records: readonly DownloadRecord[], progress?: SpoolProgress): Promise<void> {
    if (records.length === 0 && !progress) return;
    const column = <T>(pick: (d: DownloadRecord) => T) => records.map(pick);
    await this.pool.query({
      ...recordDownloadsSql,
      values: [
        column((d) => d.scraperId),
        column((d) => d.accountId),
        column((d) => d.keyId),
        column((d) => d.at),
        column((d) => storableText(d.format)),
        column((d) => storableText(d.query)),
        column((d) => d.status),
        column((d) => d.rows),
        column((d) => d.bytes),
        column((d) => d.durationMs),
        progress?.spool ?? null,
        progress?.recorded ?? null,
      ],
    });
  }

  async spoolRecorded(spool: string): Promise<number> {
    const { rows } = await this.pool.query<{ recorded: number }>('select recorded from download_spools where name = $1', [spool]);
    return rows[0]?.recorded ?? 0;
  }

  async forgetSpool(spool: string): Promise<void> {
    await this.pool.query('delete from download_spools where name = $1', [spool]);
  }

  async downloadStats(scraperId: number): Promise<DownloadStats> {
    const { rows: by } = await this.pool.query<{ owner: string; count: number }>(
      `
      select a.name as owner, t.count from download_totals t join accounts a on a.id = t.account_id
      where t.scraper_id = $1 order by t.count desc, siphon_fold(a.name), a.name`,
      [scraperId],
    );
    return { total: by.reduce((sum, b) => sum + b.count, 0), by };
  }

  async listScrapers(options: ListScrapersOptions): Promise<ScraperListing[]> {
    if (holdsNul(options.owner, options.search)) return [];
    const where = ['s.removed_at is null'];
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (!options.includePrivate) where.push('not s.private');
    if (options.owner !== undefined) where.push(`siphon_fold(a.name) = siphon_fold(${param(options.owner)})`);
    if (options.search) {
      // LIKE wildcards in the search text are matched literally; only A–Z are folded, as the interface says.
      const pattern = param(`%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(
        ['a.name', 's.name', 's.description']
          .map((column) => `siphon_fold(${column}) like siphon_fold(${pattern}) escape '\\'`)
          .join(' or '),
      );
      where[where.length - 1] = `(${where[where.length - 1]})`;
    }
    const { rows } = await this.pool.query<ScraperRow & { downloads: number }>(
      `
      select * from (
        select scraper.*, (select coalesce(sum(t.count), 0)::bigint from download_totals t where t.scraper_id = scraper.id) as downloads
        from (${scraperSelect} where ${where.join(' and ')}) scraper) listed
      order by downloads desc, updated_at desc, siphon_fold(owner_name), siphon_fold(name) limit ${param(options.limit ?? null)}`,
      params,
    );
    return rows.map((row) => ({ scraper: this.toScraper(row), downloads: row.downloads }));
  }

  async downloadsPerDay(scraperId: number, days: number, now = new Date()): Promise<DayCount[]> {
    const span = lastDays(days, now);
    const { rows } = await this.pool.query<DayCount>('select day, count from download_days where scraper_id = $1 and day >= $2', [
      scraperId,
      span[0],
    ]);
    return everyDay(span, new Map(rows.map((d) => [d.day, d.count])));
  }

  async accountDownloads(accountId: number, days: number, now = new Date()): Promise<AccountScraperDownloads[]> {
    return this.web.accountDownloads(accountId, days, now);
  }

  async pruneDownloads(before: string): Promise<number> {
    let pruned = 0;
    for (;;) {
      const { rowCount } = await this.pool.query('delete from downloads where id in (select id from downloads where at < $1 limit $2)', [
        before,
        pruneSlice,
      ]);
      pruned += rowCount ?? 0;
      if ((rowCount ?? 0) < pruneSlice) return pruned;
    }
  }

  sharedRateLimiter(perMinute: number): RateLimiter {
    return new PgRateLimiter(this.pool, perMinute);
  }

  async close(): Promise<void> {
    if (this.pool.ended) return;
    await this.feed.close();
    await this.pool.end();
  }
}
