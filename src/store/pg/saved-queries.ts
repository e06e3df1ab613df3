import { toSavedQuery, type SavedQueryRow } from '../rows.js';
import type { SavedQueryStore } from '../types.js';
import { sql, type PgConnection } from './connection.js';

/** The PostgreSQL store's saved queries: read at each use, never cached, so no node need be told of a change. */
export function pgSavedQueries({ pool }: PgConnection): SavedQueryStore {
  return {
    async saveQuery(scraperId, q, max) {
      const values = [scraperId, q.name, q.title, q.description, q.sql, q.isPrivate, new Date().toISOString(), max];
      const { rows } = await pool.query<SavedQueryRow>(sql.saveQuery, values);
      return rows[0] && toSavedQuery(rows[0]);
    },

    async findQuery(scraperId, name) {
      const { rows } = await pool.query<SavedQueryRow>(sql.findQuery, [scraperId, name]);
      return rows[0] && toSavedQuery(rows[0]);
    },

    async listQueries(scraperId, includePrivate) {
      const { rows } = await pool.query<SavedQueryRow>(sql.listQueries, [scraperId, includePrivate]);
      return rows.map(toSavedQuery);
    },

    async removeQuery(scraperId, name) {
      return ((await pool.query(sql.removeQuery, [scraperId, name])).rowCount ?? 0) > 0;
    },
  };
}
