import { sqlTokens } from './tokens.js';

/**
 * @module A slice of any query's rows, `select … from (<query>) limit … offset …`: a page of a query
 * on the data API (http/query-pages.ts) and a saved query's page (browse/query-rows.ts).
 */

/** The query without a `;` that ends it (comments after it may stay: the wrapping starts a new line). */
function withoutFinalSemicolon(sql: string): string {
  const count = (text: string) => [...sqlTokens(text)].length;
  const tokens = [...sqlTokens(sql)];
  if (tokens.at(-1)?.text !== ';') return sql;
  const total = tokens.length;
  // The last `;` outside a comment: the one before which one token fewer remains.
  for (let i = sql.lastIndexOf(';'); i >= 0; i = sql.lastIndexOf(';', i - 1)) {
    if (count(sql.slice(0, i)) === total - 1) return sql.slice(0, i);
  }
  return sql;
}

/** The query's rows `from` to `from + limit`, in its own order; the line breaks end a trailing `--` comment. */
export function sliceOf(sql: string, limit: number, from: number, columns = '*'): string {
  return `select ${columns} from (\n${withoutFinalSemicolon(sql)}\n) limit ${limit} offset ${from}`;
}
