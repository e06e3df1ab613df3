/**
 * The first rows of any query, for a page: a saved query's page shows them as a table page shows a
 * table's, run the same way (runJson: the API's checker, the given pool's fair queue and time limit,
 * the visitor's lane) and cut to a page (sql/query-slice.ts).
 */
import type { QueryPool } from '../pool/pool.js';
import type { NamedValues } from '../sql/named-params.js';
import { sliceOf } from '../sql/query-slice.js';
import type { Scraper } from '../store/types.js';
import { answerColumns, cutCell, readCells, type Cell } from './cells.js';
import { runJson } from './run.js';

export interface QueryRows {
  columns: string[];
  rows: Cell[][];
  /** More rows follow the ones shown. */
  more: boolean;
}

export interface QueryRowsOptions {
  /** The most rows shown. */
  maxRows: number;
  /** Text longer than this many characters is cut there, its cell marked `cut`. */
  maxCellChars: number;
  laneKey: string;
  /** The longest SQL the data API takes (--max-query-chars): what the query was checked against when saved. */
  maxQueryChars: number;
  /** The visitor left: the query is stopped. */
  signal?: AbortSignal;
}

/**
 * The query's first `maxRows` rows with its `:named` values bound, and whether more follow. Its values
 * cannot be cut in the SQL, whose columns are known only from its answer: the answer is bounded
 * whole instead (runJson's maxAnswerMb), then cut. Throws QueryFailed for what the query process
 * answered (an SQL error, the time limit, a full queue…).
 */
export async function queryRows(
  pool: QueryPool,
  scraper: Scraper,
  sql: string,
  values: NamedValues | undefined,
  options: QueryRowsOptions,
): Promise<QueryRows> {
  const { maxRows, maxCellChars, laneKey, maxQueryChars, signal } = options;
  const statement = { sql: sliceOf(sql, maxRows + 1, 0), params: values ?? [] };
  const maxSqlChars = maxQueryChars + statement.sql.length - sql.length; // the query's bound, and room for the slice around it
  const json = (await runJson(pool, scraper, statement, laneKey, { signal, maxSqlChars }))!;
  const columns = answerColumns(json);
  const found = readCells(json, columns);
  return {
    columns,
    rows: found.slice(0, maxRows).map((row) => row.map((cell) => cutCell(cell, maxCellChars))),
    more: found.length > maxRows,
  };
}
