/**
 * A facet's statement runs once at a time per data version, selection and column: a page that needs
 * a facet already running waits for that run, within its budget, rather than starting another. A run
 * still going when its page's budget runs out is not stopped: it goes on in the background (in the
 * same pool and lane, under the ordinary query time limit), and what it finds is cached when it ends,
 * so the next visitor gets the facet at once, however long it took; so is a facet the budget left no
 * time to start. At most `maxBackgroundFacets` go on so at once in this process (each holds a query
 * process while it runs): past that, a facet out of time is stopped, or not started, as before.
 */
import { cellText, cutCell, type Cell } from './cells.js';
import { facetStatement } from './compile.js';
import { cachedResult, keepResult, resultKey } from './results-cache.js';
import { runStatement, type ViewRun } from './run.js';

/** A few: enough for one page's facets, few enough that they never hold a pool's processes for long. */
export const maxBackgroundFacets = 4;
/** A longer value is given cut (and marked so), as the table page cuts cells: a facet of 1 MB values stays small. */
export const maxFacetValueChars = 1000;

/** What a facet's statement found, kept for the next view of the same selection. */
export interface FacetRows {
  values: { value: Cell; count: number }[];
  truncated: boolean;
}

/** The runs going on, by result key; each settles to its rows, or undefined if it failed or was stopped. */
const running = new Map<string, Promise<FacetRows | undefined>>();
let background = 0;

const late = Symbol('late');

/** The promise's value, or `late` if `deadline` (a `performance.now()` time) comes first. */
async function settleBy<T>(promise: Promise<T>, deadline: number): Promise<T | typeof late> {
  let timer: NodeJS.Timeout | undefined;
  // A timer may fire a fraction of a millisecond early: the page would then start its suggestions
  // with no time left (and stop them at once), so it is armed again until the deadline has passed.
  const timeUp = new Promise<typeof late>((resolve) => {
    const check = () => {
      const left = deadline - performance.now();
      if (left <= 0) resolve(late);
      else timer = setTimeout(check, left);
    };
    check();
  });
  try {
    return await Promise.race([promise, timeUp]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the facet's statement, registered as the key's run; `stop` ends it. */
function start(run: ViewRun, column: string, key: string, stop?: AbortSignal): Promise<FacetRows> {
  const { pool, scraper, table, view, laneKey } = run;
  const size = view.facetSize;
  const statement = facetStatement(table, view, column, size, maxFacetValueChars);
  const rows = runStatement(pool, scraper, statement, ['v', 'n'], laneKey, { signal: stop }).then((found) => {
    const values = found!.slice(0, size).map(([value, count]) => ({
      value: cutCell(value!, maxFacetValueChars),
      count: Number(cellText(count!)),
    }));
    const kept = { values, truncated: found!.length > size };
    keepResult(key, kept);
    return kept;
  });
  const settled = rows.catch(() => undefined);
  running.set(key, settled);
  void settled.then(() => running.delete(key));
  return rows;
}

const roomInBackground = () => background < maxBackgroundFacets;

/** The facet runs going on (one per result key), and how many of them go on in the background. */
export const facetRunCounts = () => ({ running: running.size, background });

/** Counts the run among the background ones until it settles. */
function inBackground(rows: Promise<unknown>): void {
  background += 1;
  void rows.catch(() => undefined).then(() => (background -= 1));
}

/**
 * The facet's rows for the page, or undefined if they were not there by `deadline` (the page's
 * budget for facets). Throws what its own run failed with before the deadline (the visitor left, a
 * full queue…); a run another page started that fails counts as not there.
 */
export async function facetRows(run: ViewRun, column: string, deadline: number): Promise<FacetRows | undefined> {
  const key = resultKey(run.scraper, run.table.name, run.view, `facet ${run.view.facetSize} ${column}`);
  const kept = cachedResult<FacetRows>(key);
  if (kept) return kept;
  const other = running.get(key);
  if (other) {
    const rows = await settleBy(other, deadline);
    return rows === late ? undefined : rows;
  }
  if (performance.now() >= deadline) {
    if (roomInBackground()) inBackground(start(run, column, key));
    return undefined;
  }
  run.signal?.throwIfAborted();
  // The visitor leaving stops the run only while their page waits for it.
  const stop = new AbortController();
  const leave = () => stop.abort(run.signal?.reason);
  run.signal?.addEventListener('abort', leave);
  try {
    const rows = start(run, column, key, stop.signal);
    const found = await settleBy(rows, deadline);
    if (found !== late) return found;
    if (roomInBackground()) inBackground(rows);
    else stop.abort();
    return undefined;
  } finally {
    run.signal?.removeEventListener('abort', leave);
  }
}
