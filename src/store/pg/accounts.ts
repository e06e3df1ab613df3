import { holdsNul } from '../nul-text.js';
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
import { sql, type PgConnection } from './connection.js';

// Run at every request: prepared once per connection (named); the rest as they come.
const findKeySql = { name: 'find-key', text: sql.findKey };

/** The PostgreSQL store's accounts and keys. A key's look-up is cached (connection.ts); a miss is not. */
export function pgAccounts(db: PgConnection): AccountStore {
  const { pool } = db;
  const now = () => new Date().toISOString();
  return {
    async createAccount(name, details = {}) {
      const { rows } = await pool.query<{ id: number }>(sql.createAccount, [
        name,
        now(),
        details.passwordHash ?? null,
        details.email ?? null,
      ]);
      return rows[0] && { id: rows[0].id, name };
    },

    async findLogin(name) {
      if (holdsNul(name)) return undefined;
      const { rows } = await pool.query<LoginRow>(sql.findLogin, [name]);
      return rows[0] && toLogin(rows[0]);
    },

    async setPasswordHash(accountId, passwordHash) {
      await pool.query(sql.setPasswordHash, [passwordHash, accountId]);
    },

    async findAccount(name) {
      if (holdsNul(name)) return undefined;
      const { rows } = await pool.query<Account>(sql.findAccount, [name]);
      return rows[0];
    },

    async listAccounts() {
      const { rows } = await pool.query<AccountListingRow>(sql.listAccounts);
      return rows.map(toAccountListing);
    },

    async addKey(accountId, keyHash, key) {
      await db.change(() => pool.query(sql.addKey, [accountId, keyHash, key.prefix, key.label, key.readOnly, key.origins, now()]));
    },

    async listKeys(accountId) {
      const { rows } = await pool.query<KeyListingRow>(sql.listKeys, [accountId]);
      return rows.map(toKeyListing);
    },

    async findKey(keyHash) {
      return db.cachedLookup(db.lookups.keys, keyHash, async () => {
        const { rows } = await pool.query<KeyRow>({ ...findKeySql, values: [keyHash] });
        return rows[0] && toApiKey(rows[0]);
      });
    },

    async revokeKey(keyHash) {
      const { rowCount } = await db.change(() => pool.query(sql.revokeKey, [now(), keyHash]));
      return (rowCount ?? 0) > 0;
    },

    async revokeAccountKey(accountId, keyId) {
      const { rowCount } = await db.change(() => pool.query(sql.revokeAccountKey, [now(), keyId, accountId]));
      return (rowCount ?? 0) > 0;
    },

    async recordKeyUse(keyId, at) {
      await pool.query(sql.keyUse, [at, keyId]);
    },
  };
}
