import type { Store } from '../types.js';
import { pgAccounts } from './accounts.js';
import { PgConnection } from './connection.js';
import { pgDownloads } from './downloads.js';
import { PgRateLimiter } from './rate-limiter.js';
import { pgSavedQueries } from './saved-queries.js';
import { pgScrapers } from './scrapers.js';
import { pgSessions } from './sessions.js';

/**
 * The store in a PostgreSQL database, shared by several Siphon nodes (docs/scaling.md), its schema
 * brought up to date. It means what the SQLite store means (src/store/types.ts;
 * test/store-contract.test.ts runs both), and its rate limits are shared by every node.
 * `connections`: the most it holds open at once.
 */
export async function openPgStore(connectionString: string, dataDir: string, connections = 10): Promise<Store> {
  const db = await PgConnection.open(connectionString, dataDir, connections);
  return {
    ...pgAccounts(db),
    ...pgSessions(db),
    ...pgScrapers(db),
    ...pgSavedQueries(db),
    ...pgDownloads(db),
    sharedRateLimiter: (perMinute) => new PgRateLimiter(db.pool, perMinute),
    close: () => db.close(),
  };
}
