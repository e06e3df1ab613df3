import { LRUCache } from 'lru-cache';
import { errors } from '../errors.js';
import { asciiLower } from '../shared/sql-names.js';
import { sqlTokens } from './tokens.js';

/** Statements a query may start with. Everything else (PRAGMA, ATTACH, EXPLAIN, writes…) is refused. */
const readKeywords = new Set(['select', 'with', 'values']);

/**
 * The table-valued pragma functions a query may read: they describe the scraper's tables. The others
 * describe the server (`pragma_database_list` shows the data file's path, `pragma_compile_options`,
 * `pragma_cache_size`… its set-up), and new ones come with new SQLite versions, so this is an allow-list.
 */
export const allowedPragmaFunctions: readonly string[] = [
  'pragma_table_info',
  'pragma_table_xinfo',
  'pragma_table_list',
  'pragma_index_list',
  'pragma_index_info',
  'pragma_index_xinfo',
  'pragma_foreign_key_list',
];
const allowedPragmas = new Set(allowedPragmaFunctions);
/** ASCII letters in any case, as `asciiLower` folds them (without the `u` flag, `/i` folds no other letter to these). */
const mayNamePragma = /pragma_/i;

/** The first keyword after whitespace and SQL comments, lower-cased ('' if there is none). */
export function firstKeyword(sql: string): string {
  for (const token of sqlTokens(sql)) return token.kind === 'word' ? asciiLower(/^[A-Za-z]*/.exec(token.text)![0]) : '';
  return '';
}

/**
 * The first name in the SQL that SQLite would take for a pragma function other than the allowed
 * ones, in any spelling: bare or quoted in any of SQLite's styles (a string too, since SQLite reads
 * `from 'pragma_x'` as a name), behind a schema, in any case. A column or string that merely starts
 * with `pragma_` is refused too: telling them apart would mean parsing SQL as SQLite does.
 */
export function refusedPragmaFunction(sql: string): string | undefined {
  // A token can only start with pragma_ where the text holds it in one piece: unquoting only turns
  // a doubled quote into one, and no quote is in `pragma_`. Most SQL has none, and skips the tokens.
  if (!mayNamePragma.test(sql)) return undefined;
  for (const token of sqlTokens(sql)) {
    if (token.kind === 'other') continue;
    // SQLite looks a name up as a pragma function when it starts with pragma_, in any ASCII case.
    const name = asciiLower(token.text);
    if (name.startsWith('pragma_') && !allowedPragmas.has(name)) return token.text;
  }
  return undefined;
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
  if (accepted.get(sql)) return sql;
  // SQLite stops reading at a NUL, so anything after one would be silently ignored.
  if (sql.includes('\0')) throw errors.queryNul();
  const first = firstKeyword(sql);
  if (!readKeywords.has(first)) throw errors.queryNotRead(first);
  const pragma = refusedPragmaFunction(sql);
  if (pragma !== undefined) throw errors.queryPragma(pragma, allowedPragmaFunctions);
  accepted.set(sql, true);
  return sql;
}

/**
 * SQL texts that passed the checks, which depend on the text alone: a client polling the same URL
 * (and every 304) skips tokenising it again. Bounded in count and in characters kept.
 */
const accepted = new LRUCache<string, true>({ max: 1000, maxSize: 1024 * 1024, sizeCalculation: (_, sql) => sql.length });
