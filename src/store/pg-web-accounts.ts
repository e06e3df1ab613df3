import { holdsNul } from './nul-text.js';
import type { StorePool } from './pg-pool.js';
import { accountDownloadsFrom, lastDays, type AccountDayRow } from './day-counts.js';
import type { Account, AccountScraperDownloads, SessionRecord } from './types.js';

/**
 * The PostgreSQL store's part for accounts on the web: passwords, sessions, the shared secrets and
 * an account's own downloads, as sqlite-web-accounts.ts is the SQLite store's. None of these change a
 * cached look-up.
 */
export class PgWebAccounts {
  constructor(private readonly pool: StorePool) {}

  async findLogin(name: string): Promise<{ account: Account; passwordHash: string | null } | undefined> {
    if (holdsNul(name)) return undefined;
    const { rows } = await this.pool.query<{ id: number; name: string; password_hash: string | null }>(
      'select id, name, password_hash from accounts where siphon_fold(name) = siphon_fold($1)',
      [name],
    );
    const row = rows[0];
    return row && { account: { id: row.id, name: row.name }, passwordHash: row.password_hash };
  }

  async setPasswordHash(accountId: number, passwordHash: string): Promise<void> {
    await this.pool.query('update accounts set password_hash = $1 where id = $2', [passwordHash, accountId]);
  }

  async saveSession(idHash: string, session: { accountId: number; expiresAt: string }): Promise<void> {
    await this.pool.query(
      `
      insert into sessions (id_hash, account_id, created_at, expires_at) values ($1, $2, $3, $4)
      on conflict (id_hash) do update set expires_at = excluded.expires_at`,
      [idHash, session.accountId, new Date().toISOString(), session.expiresAt],
    );
  }

  async findSession(idHash: string, now: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.pool.query<{ id: number; name: string; created_at: string; expires_at: string }>({
      name: 'find-session',
      text: `select a.id, a.name, s.created_at, s.expires_at from sessions s join accounts a on a.id = s.account_id
             where s.id_hash = $1 and s.expires_at > $2`,
      values: [idHash, now],
    });
    const row = rows[0];
    return row && { account: { id: row.id, name: row.name }, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  async removeSession(idHash: string): Promise<void> {
    await this.pool.query('delete from sessions where id_hash = $1', [idHash]);
  }

  async removeAccountSessions(accountId: number, keep = ''): Promise<void> {
    await this.pool.query('delete from sessions where account_id = $1 and id_hash <> $2', [accountId, keep]);
  }

  async removeExpiredSessions(now: string): Promise<number> {
    return (await this.pool.query('delete from sessions where expires_at <= $1', [now])).rowCount ?? 0;
  }

  /**
   * Inserted if missing, then read by a second statement: one inserting at the same moment as another
   * node waits for it, and only a statement begun after that sees its value.
   */
  async serverSecret(name: string, make: () => string): Promise<string> {
    await this.pool.query('insert into server_secrets (name, value) values ($1, $2) on conflict do nothing', [name, make()]);
    const { rows } = await this.pool.query<{ value: string }>('select value from server_secrets where name = $1', [name]);
    return rows[0]!.value;
  }

  async accountDownloads(accountId: number, days: number, now: Date): Promise<AccountScraperDownloads[]> {
    const span = lastDays(days, now);
    const { rows } = await this.pool.query<AccountDayRow>(
      `
      select a.name as owner, s.name, s.removed_at is not null as removed, d.scraper_id, d.day, d.count
      from download_account_days d join scrapers s on s.id = d.scraper_id join accounts a on a.id = s.owner_id
      where d.account_id = $1 and d.day >= $2`,
      [accountId, span[0]],
    );
    return accountDownloadsFrom(rows, span);
  }
}
