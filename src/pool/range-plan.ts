/**
 * In the query process: whether a whole-table query may be split by rowid, its ranges, and the SQL
 * of one range. Runs only SQL of ours, on the table the query names.
 */
import type Database from 'better-sqlite3';
import { asciiLower, quoteIdentifier } from '../shared/sql-names.js';
import type { Connection } from './connections.js';
import type { RangePlan, RowidRange } from './protocol.js';
import { wholeTable } from './ranges.js';

/**
 * `planRanges` once per SQL text and range size on a connection: a data file never changes once
 * published (a publish is a new file, and so a new connection), so neither does its plan, which
 * costs four small queries (~50 µs on a small table) and a count of the whole table.
 */
export function rangePlan(open: Connection, sql: string, rowsPerRange: number): RangePlan | undefined {
  const key = `${rowsPerRange} ${sql}`;
  let plan = open.plans.get(key);
  if (plan === undefined) open.plans.set(key, (plan = planRanges(open.db, sql, rowsPerRange) ?? false));
  return plan || undefined;
}

/**
 * Ranges of about `rowsPerRange` rows each, when `sql` reads a table whole the way its ranges would:
 * SQLite's plan is a plain scan of the table (so in rowid order, not through an index), the table
 * has a rowid (not WITHOUT ROWID, not a view or virtual table), and it has at least two ranges' rows.
 * Bounds are spread evenly between the smallest and largest rowid; gaps only make some ranges smaller.
 */
function planRanges(db: Database.Database, sql: string, rowsPerRange: number): RangePlan | undefined {
  const table = wholeTable(sql);
  if (table === undefined) return undefined;
  const steps = db.prepare(`explain query plan ${sql}`).all() as { detail: string }[];
  if (steps.length !== 1 || asciiLower(steps[0]!.detail) !== `scan ${asciiLower(table)}`) return undefined;
  const info = (db.pragma('table_list') as { schema: string; name: string; type: string; wr: number }[]).find(
    (t) => t.schema === 'main' && asciiLower(t.name) === asciiLower(table),
  );
  if (info?.type !== 'table' || info.wr !== 0) return undefined;
  const names = new Set((db.pragma(`table_xinfo(${quoteIdentifier(table)})`) as { name: string }[]).map((c) => asciiLower(c.name)));
  const column = ['rowid', '_rowid_', 'oid'].find((name) => !names.has(name));
  if (column === undefined) return undefined;
  const one = (query: string) => db.prepare(query).pluck().safeIntegers(true).get() as bigint | null;
  const [t, c] = [quoteIdentifier(table), quoteIdentifier(column)];
  const count = one(`select count(*) from ${t}`)!;
  if (count < BigInt(2 * rowsPerRange)) return undefined;
  // min() and max() of the rowid are one seek each, asked apart (together SQLite would scan).
  const min = one(`select min(${c}) from ${t}`)!;
  const max = one(`select max(${c}) from ${t}`)!;
  const ranges = (count + BigInt(rowsPerRange) - 1n) / BigInt(rowsPerRange);
  const span = (max - min) / ranges + 1n;
  const bounds: string[] = [];
  for (let bound = min + span; bound <= max; bound += span) bounds.push(bound.toString());
  return { table, column, bounds, rows: rowsPerRange };
}

/**
 * The SQL of a range and the parameters of its bounds, which its limit and offset follow (read in
 * parts, row-batches.ts). `order by` the rowid costs nothing (the search is in rowid order) and
 * makes the order certain.
 */
export function rangeQuery({ table, column, from, to }: RowidRange): { sql: string; params: bigint[] } {
  const c = quoteIdentifier(column);
  const bounds = [from === undefined ? '' : `${c} >= ?`, to === undefined ? '' : `${c} < ?`].filter((b) => b !== '');
  return {
    sql: `select * from ${quoteIdentifier(table)} where ${bounds.join(' and ')} order by ${c} limit ? offset ?`,
    params: [from, to].filter((b) => b !== undefined).map((b) => BigInt(b)),
  };
}

/** The SQL asking whether the table has rows before a range (whose first row then follows a separator). */
export function rowsBeforeQuery({ table, column }: RowidRange): string {
  return `select 1 from ${quoteIdentifier(table)} where ${quoteIdentifier(column)} < ? limit 1`;
}
