import type { LRUCache } from 'lru-cache';
import { Lookups } from '../lookups.js';
import { statements, type Dialect } from '../statements.js';
import { ChangeFeed } from './changes.js';
import { StorePool } from './pool.js';
import { migrate } from './schema.js';

/** Names match by siphon_fold() (the schema's), which folds A–Z only, as SQLite's NOCASE does. */
const dialect: Dialect = {
  nameEquals: (column, param) => `siphon_fold(${column}) = siphon_fold(${param})`,
  nameOrder: (column) => `siphon_fold(${column}), ${column}`,
  textLike: (column, param) => `siphon_fold(${column}) like siphon_fold(${param}) escape '\\'`,
  noLimit: null,
  originsColumn: 'origins',
  tablesColumn: 'tables',
};

export const sql = statements(dialect);

/**
 * The PostgreSQL store's database, which every concern's part (accounts.ts, sessions.ts…) shares:
 * its pool of connections and the cached key and scraper look-ups. Every node drops its cache when
 * any node or command changes a key, account or scraper, told by the ChangeFeed, and caches nothing
 * while it cannot be told.
 */
export class PgConnection {
  readonly lookups = new Lookups();
  private readonly feed: ChangeFeed;

  private constructor(
    readonly pool: StorePool,
    connectionString: string,
    readonly dataDir: string,
  ) {
    this.feed = new ChangeFeed(connectionString, () => this.lookups.drop());
  }

  /**
   * Connects, brings the schema up to date (once, however many nodes start at once) and starts
   * listening for other nodes' changes. `connections`: the most it holds open at once.
   */
  static async open(connectionString: string, dataDir: string, connections: number): Promise<PgConnection> {
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
    const db = new PgConnection(pool, connectionString, dataDir);
    await db.feed.start();
    return db;
  }

  /** A write that may change what a look-up returns: this node's cache is dropped at once (others are told by the feed). */
  async change<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.lookups.drop();
    }
  }

  /** A look-up through `cache`: what it read is kept only if no change came meanwhile and changes are heard. */
  async cachedLookup<T extends NonNullable<unknown>>(
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

  async close(): Promise<void> {
    if (this.pool.ended) return;
    await this.feed.close();
    await this.pool.end();
  }
}
