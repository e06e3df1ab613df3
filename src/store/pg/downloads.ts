import { accountDownloadsFrom, everyDay, lastDays, type AccountDayRow } from '../day-counts.js';
import type { DayCount, DownloadRecord } from '../records.js';
import type { DownloadStore } from '../types.js';
import { sql, type PgConnection } from './connection.js';
import { storableText } from './pool.js';

/** Downloads deleted per statement by pruneDownloads, so that recording goes on between them. */
const pruneSlice = 10_000;

/**
 * Records a batch of downloads and counts them in every total, in one statement (so in one step),
 * whatever the batch's size. Each total is added to by one upsert of the batch's counts, in key
 * order, so two nodes recording at once lock rows in the same order.
 */
const recordDownloadsSql = {
  name: 'record-downloads',
  text: `
  with batch as (
    select * from unnest($1::int[], $2::int[], $3::int[], $4::timestamptz[], $5::text[], $6::text[], $7::int[], $8::int[],
                         $9::bigint[], $10::float8[])
      as b(scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
  ), recorded as (
    insert into downloads (scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
    select * from batch
  ), totals as (
    insert into download_totals as t (scraper_id, account_id, count)
    select scraper_id, account_id, count(*) from batch group by 1, 2 order by 1, 2
    on conflict (scraper_id, account_id) do update set count = t.count + excluded.count
  ), days as (
    insert into download_days as t (scraper_id, day, count)
    select scraper_id, (at at time zone 'UTC')::date, count(*) from batch group by 1, 2 order by 1, 2
    on conflict (scraper_id, day) do update set count = t.count + excluded.count
  ), account_days as (
    insert into download_account_days as t (account_id, scraper_id, day, count)
    select account_id, scraper_id, (at at time zone 'UTC')::date, count(*) from batch group by 1, 2, 3 order by 1, 2, 3
    on conflict (account_id, day, scraper_id) do update set count = t.count + excluded.count
  ), key_uses as (
    update api_keys k set last_used_at = used.at
    from (select key_id, max(at) as at from batch group by key_id order by key_id) used
    where k.id = used.key_id and (k.last_used_at is null or k.last_used_at < used.at)
  ), spool as (
    insert into download_spools (name, recorded) select $11::text, $12::bigint where $11::text is not null
    on conflict (name) do update set recorded = excluded.recorded
  )
  select 1`,
};

/** The PostgreSQL store's downloads and their totals; none of these change a cached look-up. */
export function pgDownloads({ pool }: PgConnection): DownloadStore {
  return {
    async recordDownloads(records, progress) {
      if (records.length === 0 && !progress) return;
      const column = <T>(pick: (d: DownloadRecord) => T) => records.map(pick);
      await pool.query({
        ...recordDownloadsSql,
        values: [
          column((d) => d.scraperId),
          column((d) => d.accountId),
          column((d) => d.keyId),
          column((d) => d.at),
          column((d) => storableText(d.format)),
          column((d) => storableText(d.query)),
          column((d) => d.status),
          column((d) => d.rows),
          column((d) => d.bytes),
          column((d) => d.durationMs),
          progress?.spool ?? null,
          progress?.recorded ?? null,
        ],
      });
    },

    async spoolRecorded(spool) {
      const { rows } = await pool.query<{ recorded: number }>(sql.spoolRecorded, [spool]);
      return rows[0]?.recorded ?? 0;
    },

    async forgetSpool(spool) {
      await pool.query(sql.forgetSpool, [spool]);
    },

    async downloadStats(scraperId) {
      const { rows: by } = await pool.query<{ owner: string; count: number }>(sql.downloadStats, [scraperId]);
      return { total: by.reduce((sum, b) => sum + b.count, 0), by };
    },

    async downloadsPerDay(scraperId, days, now = new Date()) {
      const span = lastDays(days, now);
      const { rows } = await pool.query<DayCount>(sql.downloadsPerDay, [scraperId, span[0]]);
      return everyDay(span, new Map(rows.map((d) => [d.day, d.count])));
    },

    async accountDownloads(accountId, days, now = new Date()) {
      const span = lastDays(days, now);
      const { rows } = await pool.query<AccountDayRow>(sql.accountDownloads, [accountId, span[0]]);
      return accountDownloadsFrom(rows, span);
    },

    async pruneDownloads(before) {
      let pruned = 0;
      for (;;) {
        const { rowCount } = await pool.query('delete from downloads where id in (select id from downloads where at < $1 limit $2)', [
          before,
          pruneSlice,
        ]);
        pruned += rowCount ?? 0;
        if ((rowCount ?? 0) < pruneSlice) return pruned;
      }
    },
  };
}
