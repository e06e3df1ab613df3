import { accountDownloadsFrom, everyDay, lastDays } from '../day-counts.js';
import type { DayCount, DownloadRecord } from '../records.js';
import type { DownloadStore } from '../types.js';
import { sql, type SqliteConnection } from './connection.js';

/** Downloads deleted per transaction by pruneDownloads. */
const pruneSliceIds = 10_000;

const insertDownload = `
  insert into downloads (scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
const countByAccount = `
  insert into download_totals (scraper_id, account_id, count) values ($1, $2, $3)
  on conflict do update set count = count + excluded.count`;
const countByDay = `
  insert into download_days (scraper_id, day, count) values ($1, $2, $3)
  on conflict do update set count = count + excluded.count`;
const countByAccountDay = `
  insert into download_account_days (account_id, scraper_id, day, count) values ($1, $2, $3, $4)
  on conflict do update set count = count + excluded.count`;
const keepProgress = 'insert into download_spools (name, recorded) values ($1, $2) on conflict do update set recorded = excluded.recorded';

/**
 * A batch's counts added up before they are written: one update per scraper and account, per
 * scraper and day, per account, scraper and day, and per key (its latest download), not several
 * per download. The UTC day is cut from `at` as the migration that made these tables cut it; ISO
 * timestamps in UTC compare as text in time order.
 */
function batchCounts(records: readonly DownloadRecord[]) {
  const byAccount = new Map<string, { scraperId: number; accountId: number; count: number }>();
  const byDay = new Map<string, { scraperId: number; day: string; count: number }>();
  const byAccountDay = new Map<string, { accountId: number; scraperId: number; day: string; count: number }>();
  const lastUse = new Map<number, string>();
  const bump = <T extends { count: number }>(map: Map<string, T>, key: string, fresh: () => T) => {
    const entry = map.get(key);
    if (entry) entry.count += 1;
    else map.set(key, fresh());
  };
  for (const d of records) {
    const day = d.at.slice(0, 10);
    bump(byAccount, `${d.scraperId} ${d.accountId}`, () => ({ scraperId: d.scraperId, accountId: d.accountId, count: 1 }));
    bump(byDay, `${d.scraperId} ${day}`, () => ({ scraperId: d.scraperId, day, count: 1 }));
    bump(byAccountDay, `${d.accountId} ${d.scraperId} ${day}`, () => ({ accountId: d.accountId, scraperId: d.scraperId, day, count: 1 }));
    const latest = lastUse.get(d.keyId);
    if (latest === undefined || latest < d.at) lastUse.set(d.keyId, d.at);
  }
  return { byAccount, byDay, byAccountDay, lastUse };
}

/** The SQLite store's downloads and their totals; none of these change a cached lookup. */
export function sqliteDownloads(db: SqliteConnection): DownloadStore {
  return {
    async recordDownloads(records, progress) {
      const counts = batchCounts(records);
      db.transaction(() => {
        for (const d of records) {
          db.run(insertDownload, [d.scraperId, d.accountId, d.keyId, d.at, d.format, d.query, d.status, d.rows, d.bytes, d.durationMs]);
        }
        for (const c of counts.byAccount.values()) db.run(countByAccount, [c.scraperId, c.accountId, c.count]);
        for (const c of counts.byDay.values()) db.run(countByDay, [c.scraperId, c.day, c.count]);
        for (const c of counts.byAccountDay.values()) db.run(countByAccountDay, [c.accountId, c.scraperId, c.day, c.count]);
        for (const [keyId, at] of counts.lastUse) db.run(sql.keyUse, [at, keyId]);
        if (progress) db.run(keepProgress, [progress.spool, progress.recorded]);
      });
    },

    async spoolRecorded(spool) {
      return db.get<{ recorded: number }>(sql.spoolRecorded, [spool])?.recorded ?? 0;
    },

    async forgetSpool(spool) {
      db.run(sql.forgetSpool, [spool]);
    },

    async downloadStats(scraperId) {
      const by = db.all<{ owner: string; count: number }>(sql.downloadStats, [scraperId]);
      return { total: by.reduce((sum, b) => sum + b.count, 0), by };
    },

    async downloadsPerDay(scraperId, days, now = new Date()) {
      const span = lastDays(days, now);
      const counts = db.all<DayCount>(sql.downloadsPerDay, [scraperId, span[0]]);
      return everyDay(span, new Map(counts.map((d) => [d.day, d.count])));
    },

    async accountDownloads(accountId, days, now = new Date()) {
      const span = lastDays(days, now);
      const rows = db.all<{ owner: string; name: string; removed: number; scraper_id: number; day: string; count: number }>(
        sql.accountDownloads,
        [accountId, span[0]],
      );
      return accountDownloadsFrom(
        rows.map((row) => ({ ...row, removed: row.removed === 1 })),
        span,
      );
    },

    async pruneDownloads(before) {
      const { first, last } = db.get<{ first: number | null; last: number | null }>(
        'select min(id) as first, max(id) as last from downloads',
      )!;
      if (first === null || last === null) return 0;
      // In slices of ids (the rowid: no index on `at` is needed), one transaction each, so the
      // server's batches of downloads are written between them rather than wait for the whole prune.
      let pruned = 0;
      for (let from = first; from <= last; from += pruneSliceIds) {
        pruned += db.run('delete from downloads where id >= $1 and id < $2 and at < $3', [from, from + pruneSliceIds, before]).changes;
      }
      return pruned;
    },
  };
}
