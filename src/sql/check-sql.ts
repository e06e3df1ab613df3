import { errors } from '../errors.js';

/** Statements a query may start with. Everything else (PRAGMA, ATTACH, EXPLAIN, writes…) is refused. */
const readKeywords = new Set(['select', 'with', 'values']);

/** The first keyword after whitespace and SQL comments, lower-cased ('' if there is none). */
export function firstKeyword(sql: string): string {
  let i = 0;
  while (i < sql.length) {
    if (/\s/.test(sql[i]!)) {
      i += 1;
    } else if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else {
      break;
    }
  }
  return /^[A-Za-z]*/.exec(sql.slice(i))![0].toLowerCase();
}

/**
 * The checks made before the SQL reaches SQLite. They must happen before `prepare()`: preparing a
 * PRAGMA already applies it (measured with better-sqlite3 12: preparing `PRAGMA hard_heap_limit=…`,
 * never run, changed the limit). The query process then requires the prepared statement to be a
 * read-only reader, and `prepare()` refuses a second statement.
 */
export function checkSql(sql: string | undefined, maxChars: number): string {
  if (sql === undefined || sql.trim() === '') throw errors.queryMissing();
  if (sql.length > maxChars) throw errors.queryTooLong(maxChars);
  // SQLite stops reading at a NUL, so anything after one would be silently ignored.
  if (sql.includes('\0')) throw errors.queryNul();
  const first = firstKeyword(sql);
  if (!readKeywords.has(first)) throw errors.queryNotRead(first);
  return sql;
}
