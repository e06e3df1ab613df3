/**
 * Runs one of a view's statements the way the API runs a query: checked by the same checker, then in
 * a query process of the given pool (its time limit, its fair queue, the caller's lane), as json.
 */
import { errors } from '../errors.js';
import type { QueryPool } from '../pool/pool.js';
import { checkSql } from '../sql/check-sql.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { readCells, type Cell } from './cells.js';
import type { Statement } from './compile.js';
import type { TableView } from './types.js';

/** A view's SQL is ours, and bounded by the view's bounds (view-bounds.ts): far below this. */
const maxStatementChars = 256 * 1024;
/** The most one page, row or facet may hold. */
export const maxAnswerMb = 32;

/** One view's queries: where they run, on what, in whose lane. */
export interface ViewRun {
  pool: QueryPool;
  scraper: Scraper;
  table: TableInfo;
  view: TableView;
  laneKey: string;
  /** The visitor left: the queries are stopped. */
  signal?: AbortSignal;
}

export interface RunOptions {
  /** The visitor left: the query is stopped. */
  signal?: AbortSignal;
  /** `performance.now()` past which the query is stopped (its process killed) and counts as out of time. */
  deadline?: number;
  /** The longest SQL taken, when it is not a view's (a saved query's: its --max-query-chars and its slice's wrapping). */
  maxSqlChars?: number;
}

/**
 * The statement's rows as the cells of `names`; undefined if the deadline came first. Throws
 * QueryFailed for what the query process answered (a time limit, a full queue…).
 */
export async function runStatement(
  pool: QueryPool,
  scraper: Scraper,
  statement: Statement,
  names: readonly string[],
  laneKey: string,
  options: RunOptions = {},
): Promise<Cell[][] | undefined> {
  const json = await runJson(pool, scraper, statement, laneKey, options);
  return json === undefined ? undefined : readCells(json, names);
}

/** The statement's answer as the json format writes it, at most maxAnswerMb; undefined if the deadline came first. */
export async function runJson(
  pool: QueryPool,
  scraper: Scraper,
  statement: Statement,
  laneKey: string,
  options: RunOptions = {},
): Promise<string | undefined> {
  const sql = checkSql(statement.sql, options.maxSqlChars ?? maxStatementChars);
  const run = pool.run(
    { scraperId: scraper.id, file: scraper.data.file, sql, params: statement.params, format: 'json', options: {} },
    laneKey,
  );
  let outOfTime = false;
  const stop = () => run.destroy();
  const timer =
    options.deadline === undefined
      ? undefined
      : setTimeout(
          () => {
            outOfTime = true;
            run.destroy();
          },
          Math.max(0, options.deadline - performance.now()),
        );
  options.signal?.addEventListener('abort', stop);
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of run as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxAnswerMb * 2 ** 20) throw errors.viewTooLarge(maxAnswerMb);
      chunks.push(chunk);
    }
  } catch (err) {
    if (outOfTime) return undefined;
    options.signal?.throwIfAborted();
    throw err;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    if (!run.readableEnded) run.destroy();
  }
  if (outOfTime) return undefined;
  return Buffer.concat(chunks).toString('utf8');
}
