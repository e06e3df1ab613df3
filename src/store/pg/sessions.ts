import { toSession, type SessionRow } from '../rows.js';
import type { SessionStore } from '../types.js';
import { sql, type PgConnection } from './connection.js';

// Read at every signed-in page: prepared once per connection.
const findSessionSql = { name: 'find-session', text: sql.findSession };

/** The PostgreSQL store's sessions and shared secrets; none of these change a cached look-up. */
export function pgSessions({ pool }: PgConnection): SessionStore {
  return {
    async saveSession(idHash, session) {
      await pool.query(sql.saveSession, [idHash, session.accountId, new Date().toISOString(), session.expiresAt]);
    },

    async findSession(idHash, now) {
      const { rows } = await pool.query<SessionRow>({ ...findSessionSql, values: [idHash, now] });
      return rows[0] && toSession(rows[0]);
    },

    async removeSession(idHash) {
      await pool.query(sql.removeSession, [idHash]);
    },

    async removeAccountSessions(accountId, keep = '') {
      await pool.query(sql.removeAccountSessions, [accountId, keep]);
    },

    async removeExpiredSessions(now) {
      return (await pool.query(sql.removeExpiredSessions, [now])).rowCount ?? 0;
    },

    // Inserted if missing, then read by a second statement: one inserting at the same moment as
    // another node waits for it, and only a statement begun after that sees its value.
    async serverSecret(name, make) {
      await pool.query(sql.addSecret, [name, make()]);
      const { rows } = await pool.query<{ value: string }>(sql.secret, [name]);
      return rows[0]!.value;
    },
  };
}
