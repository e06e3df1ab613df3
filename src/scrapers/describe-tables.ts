import type Database from 'better-sqlite3';
import { quoteIdentifier } from '../shared/sql-names.js';
import type { ColumnInfo, FtsInfo, TableInfo } from '../store/types.js';

/**
 * A view is counted at publish up to this many rows: a view can cost anything to run (joins,
 * aggregates over the whole file), and a publish must not fail for a view's count; a table's count
 * is exact (cheap: SQLite counts the smallest b-tree of the table).
 */
export const viewRowsCap = 1_000_000;

interface SchemaEntry {
  name: string;
  type: 'table' | 'view';
  sql: string | null;
}

/** The value of an FTS table's option `name=`, in any of SQLite's quotings; undefined if it has none. */
function ftsOption(sql: string, name: string): string | undefined {
  const value = String.raw`(?:"((?:[^"]|"")*)"|'((?:[^']|'')*)'|\[([^\]]*)\]|` + '`((?:[^`]|``)*)`' + String.raw`|([^\s,)]+))`;
  const option = new RegExp(String.raw`\b${name}\s*=\s*${value}`, 'i').exec(sql);
  if (!option) return undefined;
  const [, dq, sq, br, bt, bare] = option;
  return dq?.replace(/""/g, '"') ?? sq?.replace(/''/g, "'") ?? br ?? bt?.replace(/``/g, '`') ?? bare ?? '';
}

/**
 * The table an FTS3/4/5 virtual table indexes, from its `content=` option, and the column its rows
 * are known by there (FTS5's `content_rowid=`); the table itself when it holds its own content.
 * Undefined for other virtual tables and contentless indexes (`content=''`), which show nothing.
 */
export function ftsContentTable(entry: SchemaEntry): { table: string; rowid?: string } | undefined {
  const sql = entry.sql ?? '';
  if (!/^\s*create\s+virtual\s+table[\s\S]*?\busing\s+fts[345]\s*\(/i.test(sql)) return undefined;
  const table = ftsOption(sql, 'content') ?? entry.name;
  const rowid = ftsOption(sql, 'content_rowid');
  if (table === '') return undefined;
  return rowid === undefined ? { table } : { table, rowid };
}

interface XInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
  hidden: number;
}

/**
 * The columns `select *` returns, in order: `table_xinfo`'s, less a virtual table's hidden ones
 * (`hidden` 1), so generated columns (2 virtual, 3 stored) are in. A rowid table's one INTEGER
 * PRIMARY KEY is its rowid, never NULL whatever it declares.
 */
function describeColumns(db: Database.Database, table: string, hasRowid: boolean): ColumnInfo[] {
  const rows = (db.prepare('select name, type, "notnull", pk, hidden from pragma_table_xinfo(?)').all(table) as XInfo[]).filter(
    (c) => c.hidden !== 1,
  );
  const keys = rows.filter((c) => c.pk > 0);
  const rowidAlias = hasRowid && keys.length === 1 && keys[0]!.type.toUpperCase() === 'INTEGER' ? keys[0]!.name : undefined;
  return rows.map((c) => {
    const column: ColumnInfo = { name: c.name, type: c.type };
    if (c.notnull === 1 || c.name === rowidAlias) column.notNull = true;
    if (c.hidden === 2 || c.hidden === 3) column.generated = true;
    return column;
  });
}

/**
 * Every table and view of a data version as its pages and the API describe it, computed once at
 * publish: columns, row count (views capped at `viewRowsCap`), whether it has a rowid, and the
 * full-text index that covers it.
 */
export function describeTables(db: Database.Database): TableInfo[] {
  const entries = db
    .prepare("select name, type, sql from sqlite_schema where type in ('table', 'view') and name not like 'sqlite_%' order by name")
    .all() as SchemaEntry[];
  const withoutRowid = new Set(
    (db.pragma('table_list') as { schema: string; name: string; wr: number }[])
      .filter((t) => t.schema === 'main' && t.wr === 1)
      .map((t) => t.name),
  );
  const fts = new Map<string, FtsInfo>();
  for (const entry of entries) {
    const content = ftsContentTable(entry);
    if (content === undefined || fts.has(content.table)) continue;
    fts.set(content.table, content.rowid === undefined ? { table: entry.name } : { table: entry.name, rowid: content.rowid });
  }
  return entries.map(({ name, type }) => {
    const table: TableInfo = {
      name,
      columns: describeColumns(db, name, !withoutRowid.has(name) && type === 'table'),
      rows: 0,
    };
    const count = db.prepare(
      type === 'view'
        ? `select count(*) from (select 1 from ${quoteIdentifier(name)} limit ${viewRowsCap + 1})`
        : `select count(*) from ${quoteIdentifier(name)}`,
    );
    table.rows = count.pluck().get() as number;
    if (type === 'view') {
      table.kind = 'view';
      if (table.rows > viewRowsCap) [table.rows, table.rowsCapped] = [viewRowsCap, true];
    } else if (withoutRowid.has(name)) table.kind = 'without-rowid';
    const index = fts.get(name);
    if (index) table.fts = index;
    return table;
  });
}
