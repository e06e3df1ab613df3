/**
 * A view's SQL: one parameterised statement per query, every name a column of the table (checked by
 * parseView) quoted, every value bound. Output columns are renamed (`k`, `n0`…, `c0`…), so any column
 * name comes back whole from the json format, however it is spelt.
 */
import type { BoundValues, QueryParam } from '../pool/protocol.js';
import { quoteIdentifier } from '../shared/sql-names.js';
import type { TableInfo } from '../store/types.js';
import { filterSql } from './filters.js';
import type { PagePosition } from './page-token.js';
import type { TableView } from './types.js';

export interface Statement {
  sql: string;
  params: BoundValues;
}

/**
 * The name the table's rowid goes by (the first of rowid, _rowid_ and oid no column took), or
 * undefined for a view, a table WITHOUT ROWID, or one whose columns took all three: those page by
 * offset and have no row pages.
 */
export function rowidName(table: TableInfo): string | undefined {
  if (table.kind !== undefined) return undefined;
  const names = new Set(table.columns.map((c) => c.name.toLowerCase()));
  return ['rowid', '_rowid_', 'oid'].find((name) => !names.has(name));
}

/**
 * Search terms as FTS matches them literally, each in double quotes (as Datasette does by default):
 * FTS query syntax typed into a search box would otherwise be an error, or a different search.
 */
export function ftsQuery(search: string): string {
  return search
    .split(/\s+/)
    .filter((term) => term !== '')
    .map((term) => `"${term.replace(/"/g, '""')}"`)
    .join(' ');
}

/** The view's filters and search, as conditions joined with `and` ('' if none), values pushed to `params`. */
export function whereSql(table: TableInfo, view: TableView, params: QueryParam[]): string {
  const conditions = view.filters.map((filter) => filterSql(filter, params));
  if (view.search !== undefined && table.fts) {
    const { table: index, rowid } = table.fts;
    const key = rowid === undefined ? (rowidName(table) ?? 'rowid') : rowid;
    params.push(ftsQuery(view.search));
    conditions.push(`${quoteIdentifier(key)} in (select rowid from ${quoteIdentifier(index)} where ${quoteIdentifier(index)} match ?)`);
  }
  return conditions.join(' and ');
}

const where = (...conditions: string[]) => {
  const all = conditions.filter((c) => c !== '');
  return all.length === 0 ? '' : ` where ${all.join(' and ')}`;
};

/**
 * A shown value: one longer than `maxCellChars` comes as its first `maxCellChars + 1` characters
 * (cutCell then cuts it and marks it so), so a long value never leaves its query process whole.
 */
function shownValue(column: string, maxCellChars: number | undefined): string {
  const c = quoteIdentifier(column);
  return maxCellChars === undefined
    ? c
    : `case when length(${c}) > ${maxCellChars} then substr(${c}, 1, ${maxCellChars + 1}) else ${c} end`;
}

export interface PageStatement extends Statement {
  /** The output names of the shown columns, in order. */
  cells: string[];
  /** Keyset: `k` (rowid) and `n0`… (whether each sort value is NULL) come too. */
  keyset: boolean;
}

/**
 * One page of the view, `size + 1` rows (one more says there is a next page). A table pages by
 * keyset from the last row of the page before: its rowid is in the token, and its sort values are
 * read back by the SQL, `(select s from t where rowid = ?)`, one seek each. Rows come ordered by the
 * sort keys, then the rowid (in the direction of the last sort key, so one index on the sort column
 * serves the whole order). NULLs sort first ascending and last descending, as SQLite has them: the
 * condition "after the last row" is written for the NULLs the token says the last row had. A view
 * (or a table without rowid) pages by offset.
 */
export function pageStatement(table: TableInfo, view: TableView, position: PagePosition | undefined, maxCellChars?: number): PageStatement {
  const T = quoteIdentifier(table.name);
  const cells = view.columns.map((_, i) => `c${i}`);
  const shown = view.columns.map((c, i) => `${shownValue(c, maxCellChars)} as c${i}`);
  const rowid = rowidName(table);
  const limit = view.size + 1;
  const sortSql = view.sort.map((s) => `${quoteIdentifier(s.column)}${s.desc ? ' desc' : ''}`);
  const params: QueryParam[] = [];
  if (rowid === undefined) {
    const order = sortSql.length > 0 ? ` order by ${sortSql.join(', ')}` : '';
    const sql = `select ${shown.join(', ')} from ${T}${where(whereSql(table, view, params))}${order} limit ? offset ?`;
    params.push(limit, position?.kind === 'offset' ? position.offset : 0);
    return { sql, params, cells, keyset: false };
  }
  const R = quoteIdentifier(rowid);
  const tieDesc = view.sort.at(-1)?.desc ?? false;
  const list = [`${R} as k`, ...view.sort.map((s, i) => `${quoteIdentifier(s.column)} is null as n${i}`), ...shown].join(', ');
  const order = ` order by ${[...sortSql, `${R}${tieDesc ? ' desc' : ''}`].join(', ')}`;
  const last = position?.kind === 'keyset' ? position : undefined;
  // Each part pushes its values as it is written: the SQL's `?` and `params` stay in the same order.
  const select = (after: () => string) => {
    const filters = whereSql(table, view, params);
    const sql = `select ${list} from ${T}${where(filters, after())}${order} limit ?`;
    params.push(limit);
    return sql;
  };
  if (!last) return { sql: select(() => ''), params, cells, keyset: true };
  const lastValue = (column: string) => {
    params.push(last.rowid);
    return `(select ${quoteIdentifier(column)} from ${T} where ${R} = cast(? as integer))`;
  };
  const after = (i: number): string => {
    const key = view.sort[i];
    if (key === undefined) {
      params.push(last.rowid);
      return `${R} ${tieDesc ? '<' : '>'} cast(? as integer)`;
    }
    const s = quoteIdentifier(key.column);
    if (last.nulls[i]) return key.desc ? `(${s} is null and ${after(i + 1)})` : `(${s} is not null or (${s} is null and ${after(i + 1)}))`;
    if (!key.desc) return `(${s} > ${lastValue(key.column)} or (${s} = ${lastValue(key.column)} and ${after(i + 1)}))`;
    return `(${s} < ${lastValue(key.column)} or ${s} is null or (${s} = ${lastValue(key.column)} and ${after(i + 1)}))`;
  };
  const first = view.sort[0];
  if (first === undefined || last.nulls[0]) return { sql: select(() => after(0)), params, cells, keyset: true };
  const s = quoteIdentifier(first.column);
  // Written so that an index on the first sort column is searched from the last row on, not scanned
  // from its start: a range on that column, then the rest of the condition.
  if (!first.desc) {
    return {
      sql: select(() => `${s} >= ${lastValue(first.column)} and (${s} > ${lastValue(first.column)} or ${after(1)})`),
      params,
      cells,
      keyset: true,
    };
  }
  // Descending, the NULLs come after every value, and `s <= L or s is null` is no range: the values
  // up to L, then the NULLs, as two parts. UNION ALL without an ORDER BY of its own gives its parts'
  // rows in turn, each in its order (SQLite's way; the paging tests would see it change).
  const values = select(() => `${s} <= ${lastValue(first.column)} and (${s} < ${lastValue(first.column)} or ${after(1)})`);
  const nulls = select(() => `${s} is null`);
  params.push(limit);
  return { sql: `select * from (${values}) union all select * from (${nulls}) limit ?`, params, cells, keyset: true };
}

/** Counts the view's rows, `limit` at most (undefined: all of them). */
export function countStatement(table: TableInfo, view: TableView, limit: number | undefined): Statement {
  const params: QueryParam[] = [];
  const sql = `select count(*) as n from (select 1 from ${quoteIdentifier(table.name)}${where(whereSql(table, view, params))} limit ?)`;
  params.push(limit ?? -1);
  return { sql, params };
}

/**
 * A column's most frequent values in the view, `size + 1` at most (one more says there are more),
 * each value longer than `maxChars` as its first `maxChars + 1` characters (counted whole, shown
 * cut). In a subquery of its own names, so that no column's name can stand for a result's alias.
 */
export function facetStatement(table: TableInfo, view: TableView, column: string, size: number, maxChars: number): Statement {
  const params: QueryParam[] = [];
  const c = quoteIdentifier(column);
  const groups = `select ${c} as g, ${shownValue(column, maxChars)} as v, count(*) as n from ${quoteIdentifier(table.name)}${where(whereSql(table, view, params))} group by ${c}`;
  const sql = `select v, n from (${groups}) order by n desc, g limit ?`;
  params.push(size + 1);
  return { sql, params };
}

/**
 * For each of `columns`, its distinct values (`d0`…) and longest value (`l0`…) in the view's first
 * `sampleRows` rows, and the rows read (`n`): what facets to suggest is judged on this sample.
 */
export function sampleStatement(table: TableInfo, view: TableView, columns: readonly string[], sampleRows: number): Statement {
  const params: QueryParam[] = [];
  const quoted = columns.map(quoteIdentifier);
  const stats = quoted.map((c, i) => `count(distinct ${c}) as d${i}, max(length(${c})) as l${i}`);
  const sql = `select ${[...stats, 'count(*) as n'].join(', ')} from (select ${quoted.join(', ')} from ${quoteIdentifier(table.name)}${where(whereSql(table, view, params))} limit ?)`;
  params.push(sampleRows);
  return { sql, params };
}

/**
 * Every row of the view, whole, in the page's order (the sort keys, then the rowid): what "download
 * what you see" exports. The plain table (no filter, search or sort, every column) is exactly
 * `select * from "table"`, the data API's whole-table export, which the pool may split over two
 * processes and whose bytes are the same as the API's for that query.
 */
export function exportStatement(table: TableInfo, view: TableView): Statement & { params: QueryParam[] } {
  const T = quoteIdentifier(table.name);
  const params: QueryParam[] = [];
  const filters = whereSql(table, view, params);
  const everyColumn = view.columns.length === table.columns.length;
  if (filters === '' && view.sort.length === 0 && everyColumn) return { sql: `select * from ${T}`, params };
  const rowid = rowidName(table);
  const tieDesc = view.sort.at(-1)?.desc ?? false;
  const keys = view.sort.map((s) => `${quoteIdentifier(s.column)}${s.desc ? ' desc' : ''}`);
  if (rowid !== undefined) keys.push(`${quoteIdentifier(rowid)}${tieDesc ? ' desc' : ''}`);
  const order = keys.length > 0 ? ` order by ${keys.join(', ')}` : '';
  return { sql: `select ${view.columns.map(quoteIdentifier).join(', ')} from ${T}${where(filters)}${order}`, params };
}
