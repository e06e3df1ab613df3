/**
 * How many rows a view has. The whole table's count was taken at publish (`TableInfo.rows`); a
 * filtered view is counted in steps of ten times more rows each (`select count(*) from (select 1 …
 * limit N)`), within a budget: past it, the last step finished gives a lower bound ("more than N").
 * `_count=all` counts every match as an ordinary query, under the query time limit.
 */
import { QueryFailed } from '../errors.js';
import type { TableInfo } from '../store/types.js';
import { countStatement } from './compile.js';
import { cachedResult, keepResult, resultKey } from './results-cache.js';
import { runStatement, type RunOptions, type ViewRun } from './run.js';

export const countBudgetMs = 200;
const firstStep = 10_000;

export interface ViewCount {
  count: number;
  /** `count` is a lower bound. */
  truncated: boolean;
}

/** The per-version row count taken at publish (a view's capped: see `rowsCapped`). */
export const tableCount = (table: TableInfo): ViewCount => ({ count: table.rows, truncated: table.rowsCapped === true });

/** `seen`: rows the page showed, and whether it has a next one: a lower bound when no step finished. */
export async function countView(
  { pool, scraper, table, view, laneKey, signal }: ViewRun,
  seen: { rows: number; more: boolean },
): Promise<ViewCount> {
  const whole = view.filters.length === 0 && view.search === undefined;
  if (whole && !(view.countAll && table.rowsCapped)) return tableCount(table);
  const key = resultKey(scraper, table.name, view, 'count');
  const kept = cachedResult<ViewCount>(key);
  if (kept && (!kept.truncated || !view.countAll)) return kept;
  let known: ViewCount = { count: seen.rows, truncated: seen.more };
  const count = async (limit: number | undefined, options: RunOptions) => {
    const rows = await runStatement(pool, scraper, countStatement(table, view, limit), ['n'], laneKey, options);
    return rows === undefined ? undefined : Number(rows[0]![0]!.kind === 'null' ? 0 : rows[0]![0]!.text);
  };
  if (view.countAll) {
    try {
      const n = await count(undefined, { signal });
      known = { count: n!, truncated: false };
    } catch (err) {
      // Past the time limit: the page says so with what it knows, as it would past the budget.
      if (!(err instanceof QueryFailed && err.failure.kind === 'timeout')) throw err;
    }
  } else {
    const deadline = performance.now() + countBudgetMs;
    for (let limit = firstStep; performance.now() < deadline; limit *= 10) {
      const n = await count(limit + 1, { signal, deadline });
      if (n === undefined) break;
      if (n <= limit) {
        known = { count: n, truncated: false };
        break;
      }
      known = { count: limit, truncated: true };
    }
  }
  if (!known.truncated) keepResult(key, known);
  return known;
}
