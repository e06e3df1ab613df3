import Database from 'better-sqlite3';
import path from 'node:path';
import type pg from 'pg';
import { StoreUnavailable } from './open.js';
import { inTransaction, storableText, StorePool } from './pg/pool.js';
import { migrate } from './pg/schema.js';
import { openSqliteStore } from './sqlite/store.js';

/** The target database holds accounts or scrapers already: nothing was copied, nor its schema changed. */
export class TargetNotEmpty extends Error {
  constructor(
    readonly accounts: number,
    readonly scrapers: number,
  ) {
    super(`the database holds ${accounts} accounts and ${scrapers} scrapers`);
  }
}

/** Rows copied, per table of the schema. */
export type CopyCounts = Record<string, number>;

/**
 * One table copied: its rows as SQLite holds them, read under PostgreSQL's column names, and which
 * of those columns hold JSON text (each then given as the JSON value it holds: `origins` becomes a
 * text[], `tables` a jsonb). Every id is kept as it is (see copyToPostgres).
 */
interface TableCopy {
  table: string;
  select: string;
  json?: readonly string[];
  /** Written over what the target has: a node started on the target before made its own secrets. */
  onConflict?: string;
}

// In the order of their references. The three rollups are copied, not counted again from the
// downloads: they keep counting the downloads that `downloads prune` deleted.
const tables: readonly TableCopy[] = [
  { table: 'accounts', select: 'select id, name, created_at, password_hash, email from accounts order by id' },
  {
    table: 'api_keys',
    select: `select id, account_id, hash, prefix, label, read_only, origins_json as origins, created_at, last_used_at, revoked_at
             from api_keys order by id`,
    json: ['origins'],
  },
  {
    table: 'scrapers',
    select: `select id, owner_id, name, description, private, data_file, data_version, tables_json as tables, size_bytes,
                    created_at, updated_at, removed_at, keep_versions, keep_days
             from scrapers order by id`,
    json: ['tables'],
  },
  {
    table: 'data_versions',
    select: `select scraper_id, version, data_file, tables_json as tables, size_bytes, published_at, retired_at
             from data_versions order by scraper_id, version`,
    json: ['tables'],
  },
  {
    table: 'saved_queries',
    select: 'select scraper_id, name, title, description, sql, private, updated_at from saved_queries order by scraper_id, name',
  },
  // Only those not yet expired (ISO texts, compared as texts: strftime writes toISOString's form).
  {
    table: 'sessions',
    select: `select id_hash, account_id, created_at, expires_at from sessions where expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  },
  {
    table: 'server_secrets',
    select: 'select name, value from server_secrets',
    onConflict: 'on conflict (name) do update set value = excluded.value',
  },
  {
    table: 'downloads',
    select: 'select id, scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms from downloads order by id',
  },
  { table: 'download_totals', select: 'select scraper_id, account_id, count from download_totals' },
  { table: 'download_days', select: 'select scraper_id, day, count from download_days' },
  { table: 'download_account_days', select: 'select account_id, scraper_id, day, count from download_account_days' },
  // A spool left by a server that was killed is replayed by the first node on PostgreSQL from where
  // SQLite had recorded it: its entries name accounts, keys and scrapers by the ids kept here.
  { table: 'download_spools', select: 'select name, recorded from download_spools' },
];

/** The tables whose ids later rows are numbered after. */
const identities = ['accounts', 'api_keys', 'scrapers', 'downloads'];

/** Rows sent to PostgreSQL per statement: a million downloads are never in memory at once. */
export const defaultBatchRows = 5000;

type Row = Record<string, unknown>;

/** The rows of `rows` in arrays of `size`, the next read only when the last is written. */
function* batches(rows: Iterable<Row>, size: number): Generator<Row[]> {
  let batch: Row[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * The row as PostgreSQL takes it: each U+0000 as U+FFFD (its text cannot hold one, and SQLite's may:
 * a refused query's SQL is recorded as sent; the PostgreSQL store keeps it so too), and its JSON
 * columns as the values they hold.
 */
function storable(row: Row, json: readonly string[]): Row {
  for (const [column, value] of Object.entries(row)) {
    if (typeof value !== 'string') continue;
    const text = storableText(value)!;
    row[column] = json.includes(column) ? JSON.parse(text) : text;
  }
  return row;
}

/** Copies one table in batches; each batch is one statement, its rows given as one JSON parameter. */
async function copyTable(source: Database.Database, target: pg.PoolClient, copy: TableCopy, batchRows: number): Promise<number> {
  const rows = source.prepare(copy.select).iterate() as IterableIterator<Row>;
  let copied = 0;
  for (const batch of batches(rows, batchRows)) {
    const columns = Object.keys(batch[0]!).join(', ');
    const values = batch.map((row) => storable(row, copy.json ?? []));
    // The table's own row type reads each JSON value as its column's type: 0/1 as booleans, ISO texts as timestamptz.
    await target.query(
      `insert into ${copy.table} (${columns}) select ${columns} from json_populate_recordset(null::${copy.table}, $1) ${copy.onConflict ?? ''}`,
      [JSON.stringify(values)],
    );
    copied += batch.length;
  }
  return copied;
}

/** How many accounts and scrapers the target holds: none while its schema is not made yet. */
async function held(target: pg.PoolClient): Promise<{ accounts: number; scrapers: number }> {
  const made = await target.query<{ made: boolean }>("select to_regclass('accounts') is not null as made");
  if (!made.rows[0]!.made) return { accounts: 0, scrapers: 0 };
  const found = await target.query<{ accounts: number; scrapers: number }>(
    'select (select count(*) from accounts)::int as accounts, (select count(*) from scrapers)::int as scrapers',
  );
  return found.rows[0]!;
}

async function refuseUnlessEmpty(target: pg.PoolClient): Promise<void> {
  const { accounts, scrapers } = await held(target);
  if (accounts > 0 || scrapers > 0) throw new TargetNotEmpty(accounts, scrapers);
}

/**
 * Copies everything of the data folder's SQLite store (its siphon.db, which must exist) into the
 * PostgreSQL database of `url`, whose schema is first brought up to date as a node would. The rows
 * are copied in one transaction: every one of them or none. Refused (TargetNotEmpty) when the target
 * holds any account or scraper, before anything is changed, its schema included.
 *
 * Every id is kept: downloads, rollups and spool entries refer to accounts, keys and scrapers by
 * id, and the target is empty, so no id is taken. The identities then number new rows after them.
 * SQLite is read in one read transaction (one snapshot) on a read-only connection: the source is
 * never changed, and a server writing to it meanwhile does not make the copy inconsistent.
 */
export async function copyToPostgres(dataDir: string, url: string, batchRows = defaultBatchRows): Promise<CopyCounts> {
  const file = path.join(dataDir, 'siphon.db');
  // Brings an older siphon.db to the current schema, as any command opening it does.
  await openSqliteStore(file, dataDir).close();
  const source = new Database(file, { readonly: true, fileMustExist: true });
  // One connection: the checks, the migration and the copy run one after the other.
  const pool = new StorePool(url, 1);
  try {
    source.exec('begin');
    const client = await pool.connect();
    try {
      await refuseUnlessEmpty(client);
      await migrate(client);
    } finally {
      client.release();
    }
    return await inTransaction(pool, async (target) => {
      // A second copy (or a node's first account) waits here, then finds what the first made.
      await target.query('lock table accounts, scrapers in exclusive mode');
      await refuseUnlessEmpty(target);
      const counts: CopyCounts = {};
      for (const copy of tables) counts[copy.table] = await copyTable(source, target, copy, batchRows);
      for (const table of identities) {
        await target.query(`select setval(pg_get_serial_sequence('${table}', 'id'), max(id)) from ${table}`);
      }
      return counts;
    });
  } catch (err) {
    if (err instanceof TargetNotEmpty || err instanceof Database.SqliteError) throw err;
    // The driver's own words (connect ECONNREFUSED, database "x" does not exist…), never the URL.
    const reason = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    throw new StoreUnavailable(`PostgreSQL: ${reason instanceof Error ? reason.message : String(reason)}; nothing was copied`);
  } finally {
    source.close();
    await pool.end();
  }
}
