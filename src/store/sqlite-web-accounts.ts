import type Database from 'better-sqlite3';
import { accountDownloadsFrom, lastDays } from './day-counts.js';
import type { Account, AccountScraperDownloads, SessionRecord } from './types.js';

type Prepare = (sql: string) => Database.Statement;

/**
 * The SQLite store's part for accounts on the web: passwords, sessions, the shared secrets and an
 * account's own downloads. Kept apart from sqlite-store.ts, which delegates to it; none of these
 * change a cached key or scraper lookup.
 */
export class SqliteWebAccounts {
  constructor(
    private readonly db: Database.Database,
    private readonly stmt: Prepare,
  ) {}

  findLogin(name: string): { account: Account; passwordHash: string | null } | undefined {
    const row = this.stmt('select id, name, password_hash from accounts where name = ?').get(name) as
      { id: number; name: string; password_hash: string | null } | undefined;
    return row && { account: { id: row.id, name: row.name }, passwordHash: row.password_hash };
  }

  setPasswordHash(accountId: number, passwordHash: string): void {
    this.stmt('update accounts set password_hash = ? where id = ?').run(passwordHash, accountId);
  }

  saveSession(idHash: string, session: { accountId: number; expiresAt: string }): void {
    this.stmt(
      `
      insert into sessions (id_hash, account_id, created_at, expires_at) values (?, ?, ?, ?)
      on conflict (id_hash) do update set expires_at = excluded.expires_at`,
    ).run(idHash, session.accountId, new Date().toISOString(), session.expiresAt);
  }

  findSession(idHash: string, now: string): SessionRecord | undefined {
    const row = this.stmt(
      `
      select a.id, a.name, s.created_at, s.expires_at from sessions s join accounts a on a.id = s.account_id
      where s.id_hash = ? and s.expires_at > ?`,
    ).get(idHash, now) as { id: number; name: string; created_at: string; expires_at: string } | undefined;
    return row && { account: { id: row.id, name: row.name }, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  removeSession(idHash: string): void {
    this.stmt('delete from sessions where id_hash = ?').run(idHash);
  }

  removeAccountSessions(accountId: number, keep = ''): void {
    this.stmt('delete from sessions where account_id = ? and id_hash <> ?').run(accountId, keep);
  }

  removeExpiredSessions(now: string): number {
    return this.stmt('delete from sessions where expires_at <= ?').run(now).changes;
  }

  /** Inserted if missing and read back in one transaction, so two servers starting together agree. */
  serverSecret(name: string, make: () => string): string {
    return this.db
      .transaction(() => {
        this.stmt('insert into server_secrets (name, value) values (?, ?) on conflict do nothing').run(name, make());
        return this.stmt('select value from server_secrets where name = ?').pluck().get(name) as string;
      })
      .immediate();
  }

  /** Adds `count` downloads by an account of a scraper on a UTC day (`YYYY-MM-DD`). */
  countDownloads(accountId: number, scraperId: number, day: string, count: number): void {
    this.stmt(
      `
      insert into download_account_days (account_id, scraper_id, day, count) values (?, ?, ?, ?)
      on conflict do update set count = count + excluded.count`,
    ).run(accountId, scraperId, day, count);
  }

  accountDownloads(accountId: number, days: number, now: Date): AccountScraperDownloads[] {
    const span = lastDays(days, now);
    const rows = this.stmt(
      `
      select a.name as owner, s.name, s.removed_at is not null as removed, d.scraper_id, d.day, d.count
      from download_account_days d join scrapers s on s.id = d.scraper_id join accounts a on a.id = s.owner_id
      where d.account_id = ? and d.day >= ?`,
    ).all(accountId, span[0]) as { owner: string; name: string; removed: number; scraper_id: number; day: string; count: number }[];
    return accountDownloadsFrom(
      rows.map((row) => ({ ...row, removed: row.removed === 1 })),
      span,
    );
  }
}
