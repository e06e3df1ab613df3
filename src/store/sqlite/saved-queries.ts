import { toSavedQuery, type SavedQueryRow } from '../rows.js';
import type { SavedQueryStore } from '../types.js';
import { sql, type SqliteConnection } from './connection.js';

/** The SQLite store's saved queries: read at each use, never cached, so no lookup is dropped by a change. */
export function sqliteSavedQueries(db: SqliteConnection): SavedQueryStore {
  return {
    async saveQuery(scraperId, q, max) {
      const row = db.get<SavedQueryRow>(sql.saveQuery, [
        scraperId,
        q.name,
        q.title,
        q.description,
        q.sql,
        q.isPrivate ? 1 : 0,
        new Date().toISOString(),
        max,
      ]);
      return row && toSavedQuery(row);
    },

    async findQuery(scraperId, name) {
      const row = db.get<SavedQueryRow>(sql.findQuery, [scraperId, name]);
      return row && toSavedQuery(row);
    },

    async listQueries(scraperId, includePrivate) {
      return db.all<SavedQueryRow>(sql.listQueries, [scraperId, includePrivate ? 1 : 0]).map(toSavedQuery);
    },

    async removeQuery(scraperId, name) {
      return db.run(sql.removeQuery, [scraperId, name]).changes > 0;
    },
  };
}
