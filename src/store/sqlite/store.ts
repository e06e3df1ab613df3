import type { Store } from '../types.js';
import { sqliteAccounts } from './accounts.js';
import { SqliteConnection } from './connection.js';
import { sqliteDownloads } from './downloads.js';
import { sqliteSavedQueries } from './saved-queries.js';
import { sqliteScrapers } from './scrapers.js';
import { sqliteSessions } from './sessions.js';

/**
 * The default store: one SQLite file (connection.ts), its schema brought up to date. `dataDir`: the
 * folder data files are kept relative to; siphon.db's own folder unless told. It has no shared rate
 * limiter: its server counts in its own memory.
 */
export function openSqliteStore(file: string, dataDir?: string): Store {
  const db = new SqliteConnection(file, dataDir);
  return {
    ...sqliteAccounts(db),
    ...sqliteSessions(db),
    ...sqliteScrapers(db),
    ...sqliteSavedQueries(db),
    ...sqliteDownloads(db),
    async close() {
      db.close();
    },
  };
}
