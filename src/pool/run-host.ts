import type { QueryRun } from './query-run.js';
import type { ProcessSlot } from './slot.js';
import type { SpoolOptions } from './spool.js';

/** What a run needs from its pool. */
export interface RunHost {
  /**
   * The run is done with this slot: its process is free. One still working on the run's job is let
   * finish it, or killed (only a kill stops a query): pool.ts says when.
   */
  free(slot: ProcessSlot): void;
  /** The run waits no more: in the queue, or sent ahead to a process. */
  withdraw(run: QueryRun): void;
  /** The run has worked long enough to be a long query. */
  promote(run: QueryRun): void;
  /** Whether a second process could be had for the run now (pool.ts says when), without taking it. */
  spare(run: QueryRun): boolean;
  /** A second slot for the run, taken now, if one may be had. */
  secondSlot(run: QueryRun): ProcessSlot | undefined;
  /** Whether queries wait for a process: a split run's second process goes back for them. */
  othersWaiting(): boolean;
}

export interface RunOptions {
  timeoutMs: number;
  /** A query still working after this long is a long one. */
  longAfterMs: number;
  spool: SpoolOptions;
  /** Rows of each range when a whole-table export is split (ranges.ts); 0: never split. */
  rowsPerRange: number;
}
