import path from 'node:path';
import type { Config } from '../config.js';
import { openSqliteStore } from './sqlite/store.js';
import type { Store } from './types.js';

/** The store's database could not be opened or brought up to date: the message says why, never the URL (it may hold a password). */
export class StoreUnavailable extends Error {}

/**
 * The store the configuration names: the PostgreSQL database of `databaseUrl`, shared by every node
 * pointed at it, else `siphon.db` in the data folder. Either way its schema is brought up to date.
 * `connections`: the most a PostgreSQL store holds open (a command needs few, a server more).
 */
export async function openStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>, connections = 10): Promise<Store> {
  if (config.databaseUrl === undefined) return openSqliteStore(path.join(config.dataDir, 'siphon.db'));
  // Loaded only here: SQLite's users never load the PostgreSQL driver.
  const { openPgStore } = await import('./pg/store.js');
  try {
    return await openPgStore(config.databaseUrl, config.dataDir, connections);
  } catch (err) {
    // The driver's own words (connect ECONNREFUSED, password authentication failed…), not the 503 they became.
    const reason = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    throw new StoreUnavailable(`PostgreSQL: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}
