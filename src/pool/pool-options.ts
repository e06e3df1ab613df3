import type { FairQueueLimits } from './fair-queue.js';
import type { ProcessLimits } from './query-process.js';
import type { RunOptions } from './run-host.js';
import { SpoolBudget } from './spool.js';

/** A query working longer than this is a long one (exports, big sorts). */
const longAfterMs = 1000;
/** Of a response's output its client has not taken yet, this much is kept in memory, the rest in a file. */
const spoolMemoryBytes = 1024 * 1024;
/** A pool's limits and sizes (service.ts makes the API's and the previews'). */
export interface PoolOptions extends ProcessLimits {
  size: number;
  /** Long queries running at once; one more turning long is parked until one of them ends. */
  longQueries: number;
  timeoutMs: number;
  queue: FairQueueLimits;
  spoolResponseMb: number;
  spoolTotalMb: number;
  /** Rows of each range of a split whole-table export; 0: exports are never split. */
  rowsPerRange: number;
  /** Queries just started that may run at once: the machine's cores (see slot.ts's `untilOneMayStart`). */
  startingAtOnce: number;
  /** Queries sent ahead to one process at most (send-ahead.ts); 0: none is. */
  queriesAhead: number;
}

/** What each run of a pool is made with: `split`, for a reader that keeps up with two processes (split-export.ts), and `unsplit`. */
export function runOptions(options: PoolOptions): { split: RunOptions; unsplit: RunOptions } {
  const budget = new SpoolBudget(options.spoolTotalMb * 2 ** 20);
  const spool = { dir: options.tempDir, memoryBytes: spoolMemoryBytes, maxFileBytes: options.spoolResponseMb * 2 ** 20, budget };
  const split = { timeoutMs: options.timeoutMs, longAfterMs, spool, rowsPerRange: options.rowsPerRange };
  return { split, unsplit: { ...split, rowsPerRange: 0 } };
}
