import {
  toAccountListing,
  toApiKey,
  toKeyListing,
  toLogin,
  type AccountListingRow,
  type KeyListingRow,
  type KeyRow,
  type LoginRow,
} from '../rows.js';
import type { Account, AccountStore } from '../types.js';
import { sql, type SqliteConnection } from './connection.js';

/** The SQLite store's accounts and keys. A key's lookup is cached (connection.ts); a miss is not. */
export function sqliteAccounts(db: SqliteConnection): AccountStore {
  const now = () => new Date().toISOString();
  return {
    async createAccount(name, details = {}) {
      const row = db.change(() =>
        db.get<{ id: number }>(sql.createAccount, [name, now(), details.passwordHash ?? null, details.email ?? null]),
      );
      return row && { id: row.id, name };
    },

    async findLogin(name) {
      const row = db.get<LoginRow>(sql.findLogin, [name]);
      return row && toLogin(row);
    },

    async setPasswordHash(accountId, passwordHash) {
      db.run(sql.setPasswordHash, [passwordHash, accountId]);
    },

    async findAccount(name) {
      return db.get<Account>(sql.findAccount, [name]);
    },

    async listAccounts() {
      return db.all<AccountListingRow>(sql.listAccounts).map(toAccountListing);
    },

    async addKey(accountId, keyHash, key) {
      const origins = key.origins === null ? null : JSON.stringify(key.origins);
      db.change(() => db.run(sql.addKey, [accountId, keyHash, key.prefix, key.label, key.readOnly ? 1 : 0, origins, now()]));
    },

    async listKeys(accountId) {
      return db.all<KeyListingRow>(sql.listKeys, [accountId]).map(toKeyListing);
    },

    async findKey(keyHash) {
      db.dropStaleLookups();
      const cached = db.lookups.keys.get(keyHash);
      if (cached) return cached;
      const row = db.get<KeyRow>(sql.findKey, [keyHash]);
      if (!row) return undefined;
      const key = toApiKey(row);
      db.lookups.keys.set(keyHash, key);
      return key;
    },

    async revokeKey(keyHash) {
      return db.change(() => db.run(sql.revokeKey, [now(), keyHash])).changes > 0;
    },

    async revokeAccountKey(accountId, keyId) {
      return db.change(() => db.run(sql.revokeAccountKey, [now(), keyId, accountId])).changes > 0;
    },

    async recordKeyUse(keyId, at) {
      db.run(sql.keyUse, [at, keyId]);
    },
  };
}
