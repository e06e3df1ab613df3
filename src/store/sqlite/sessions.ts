import { toSession, type SessionRow } from '../rows.js';
import type { SessionStore } from '../types.js';
import { sql, type SqliteConnection } from './connection.js';

/** The SQLite store's sessions and shared secrets; none of these change a cached lookup. */
export function sqliteSessions(db: SqliteConnection): SessionStore {
  return {
    async saveSession(idHash, session) {
      db.run(sql.saveSession, [idHash, session.accountId, new Date().toISOString(), session.expiresAt]);
    },

    async findSession(idHash, now) {
      const row = db.get<SessionRow>(sql.findSession, [idHash, now]);
      return row && toSession(row);
    },

    async removeSession(idHash) {
      db.run(sql.removeSession, [idHash]);
    },

    async removeAccountSessions(accountId, keep = '') {
      db.run(sql.removeAccountSessions, [accountId, keep]);
    },

    async removeExpiredSessions(now) {
      return db.run(sql.removeExpiredSessions, [now]).changes;
    },

    // Inserted if missing and read back in one transaction, so two servers starting together agree.
    async serverSecret(name, make) {
      return db.transaction(() => {
        db.run(sql.addSecret, [name, make()]);
        return db.get<{ value: string }>(sql.secret, [name])!.value;
      });
    },
  };
}
