import { mkdirSync } from 'node:fs';
import type { Transform } from 'node:stream';
import { QueryFailed } from '../errors.js';
import { FairQueue, type FairQueueLimits } from './fair-queue.js';
import type { QueryJob } from './protocol.js';
import { QueryProcess, type ProcessLimits } from './query-process.js';
import { QueryRun, type RunHost } from './query-run.js';
import { SpoolBudget } from './spool.js';

/** A process that dies this soon after starting is failing to start; wait before starting another. */
const quickDeathMs = 1000;
const respawnDelayMs = 250;
/** Start-up gives up after this long, or after this many processes died before they were ready. */
const startDeadlineMs = 30_000;
const startFailuresAllowed = 3;
/** A query working longer than this is a long one (exports, big sorts). */
const longAfterMs = 1000;
/** A query counts as just started for this long (see `startingWait`). */
const startingMs = 20;
/** Of a response's output its client has not taken yet, this much is kept in memory, the rest in a file. */
const spoolMemoryBytes = 1024 * 1024;
/**
 * Output of a split export's range not yet due (a range ahead's, or the rest of one while the
 * spool is full) kept in memory, at most, a range; beyond, its process waits. A range is about a MB
 * (`rowsPerRange`), so this binds only for very wide rows, or while the spool is full. With
 * `rangesAhead`, an export holds 16 MB at most.
 */
const rangeHoldBytes = 4 * 1024 * 1024;
/**
 * Ranges a split export's processes may run beyond the one being sent. With one, a process that
 * ended the range ahead waited for the other to end the current one: on a busy machine the two
 * took turns as much as they ran together. With three, alternating runs: gzip and br exports
 * 5-20 % faster, uncompressed ones up to 20 %, most when the machine is busy (BENCHMARKS.md, ninth
 * round); the run still holds two processes at most.
 */
const rangesAhead = 3;

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
  /** Queries just started that may run at once: the machine's cores (see `startingWait`). */
  startingAtOnce: number;
}

/** Query processes could not be started: the message says why (what the last one wrote to stderr). */
export class PoolStartError extends Error {}

/**
 * Runs untrusted queries in a pool of processes, one query per process at a time, fairly between
 * keys (fair-queue.ts). A query past its time limit, or whose client went away, gets its process
 * killed and a fresh one started: only that reliably stops a long SQLite step.
 *
 * Lanes: a query that works longer than a second is long. Long queries run at a lower CPU priority,
 * and at most `longQueries` of them at once; one more is frozen (parked, its clock stopped) until one
 * ends. With a pool larger than `longQueries`, the rest of the processes stay for short queries.
 *
 * Split exports (query-run.ts): a whole-table export takes a second process only while one is
 * idle, no query waits and its key has a free slot (the second process counts as one of the key's
 * running queries). It gives the second process back at the end of a range as soon as any query
 * waits, so another key waits for it one range at most (about a MB of output).
 */
export class QueryPool implements RunHost {
  private readonly processes = new Set<QueryProcess>();
  private readonly idle: QueryProcess[] = [];
  private readonly busy = new Map<QueryProcess, QueryRun>();
  private readonly queue: FairQueue<QueryRun>;
  private readonly long = new Set<QueryRun>();
  private readonly parked: QueryRun[] = [];
  private readonly budget: SpoolBudget;
  private startFailures = 0;
  private lastStartError = '';
  private closing = false;
  /** Dispatches again once a query stops counting as just started. */
  private dispatchTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PoolOptions) {
    mkdirSync(options.tempDir, { recursive: true });
    this.queue = new FairQueue(options.queue);
    this.budget = new SpoolBudget(options.spoolTotalMb * 2 ** 20);
    for (let i = 0; i < options.size; i++) this.spawn();
  }

  /**
   * Starts a query for `key`; its encoded result is read from the returned stream, which fails with
   * QueryFailed. `mayTakeTwo`: its reader keeps up with two query processes, so a whole-table export
   * may be split over two (query-run.ts); a reader slower than one process gains nothing from it.
   * `compressor`: the run's output goes through it before it is spooled, and the stream is compressed.
   */
  run(job: QueryJob, key: string, mayTakeTwo = false, compressor?: Transform): QueryRun {
    const run = new QueryRun(this, job, key, {
      timeoutMs: this.options.timeoutMs,
      longAfterMs,
      spool: {
        dir: this.options.tempDir,
        memoryBytes: spoolMemoryBytes,
        maxFileBytes: this.options.spoolResponseMb * 2 ** 20,
        budget: this.budget,
      },
      rowsPerRange: mayTakeTwo ? this.options.rowsPerRange : 0,
      holdBytes: rangeHoldBytes,
      rangesAhead,
      compressor,
    });
    try {
      if (this.closing) throw new QueryFailed({ kind: 'closing' });
      this.queue.enqueue(run);
      this.dispatch();
    } catch (err) {
      run.destroy(err as Error);
    }
    return run;
  }

  /** Processes started and ready to take a query. */
  get readyCount(): number {
    return this.idle.length + this.busy.size;
  }

  /** What the pool is doing now: processes running a query, queries waiting, long and parked ones. */
  stats(): { ready: number; busy: number; waiting: number; long: number; parked: number } {
    return { ready: this.readyCount, busy: this.busy.size, waiting: this.queue.waiting, long: this.long.size, parked: this.parked.length };
  }

  /**
   * Resolves once every process of the pool has started; rejects with PoolStartError when they
   * cannot (a memory cap too small for Node, say), rather than wait for ever.
   */
  async ready(): Promise<void> {
    const deadline = Date.now() + startDeadlineMs;
    while (this.readyCount < this.options.size) {
      if (this.closing) throw new PoolStartError('the query pool was closed while starting');
      if (this.startFailures >= startFailuresAllowed || Date.now() > deadline) {
        throw new PoolStartError(`query processes could not start: ${this.lastStartError || 'not ready in time'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.dispatchTimer);
    this.queue.drain(new QueryFailed({ kind: 'closing' }));
    await Promise.all([...this.processes].map((p) => p.kill()));
  }

  release(run: QueryRun, process: QueryProcess): void {
    this.busy.delete(process);
    this.leave(run);
    if (process.gone) return;
    if (process.restorePriority()) this.idle.push(process);
    else void process.kill(); // its exit starts a replacement at normal priority
    this.dispatch();
  }

  kill(run: QueryRun, process: QueryProcess): void {
    this.busy.delete(process);
    this.leave(run);
    void process.kill();
  }

  unqueue(run: QueryRun): void {
    this.queue.remove(run);
  }

  promote(run: QueryRun): void {
    if (this.long.size < this.options.longQueries) {
      this.long.add(run);
      run.lowerPriority();
    } else {
      this.parked.push(run);
      run.park();
    }
  }

  spare(run: QueryRun): boolean {
    return !this.closing && this.idle.length > 0 && this.queue.waiting === 0 && this.queue.hasSlot(run);
  }

  helper(run: QueryRun): QueryProcess | undefined {
    if (!this.spare(run)) return undefined;
    this.queue.takeSlot(run);
    const process = this.idle.pop()!;
    this.busy.set(process, run);
    return process;
  }

  othersWaiting(): boolean {
    return this.queue.waiting > 0;
  }

  /**
   * The run lets a process go: its key may run another. Once it holds none, its place as a long
   * query frees too.
   */
  private leave(run: QueryRun): void {
    this.queue.finished(run);
    if ([...this.busy.values()].includes(run)) return;
    if (this.long.delete(run)) {
      const next = this.parked.shift();
      if (next) {
        this.long.add(next);
        next.unpark();
      }
    } else {
      const i = this.parked.indexOf(run);
      if (i !== -1) this.parked.splice(i, 1);
    }
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.waiting > 0) {
      const wait = this.startingWait();
      if (wait > 0) {
        this.dispatchTimer ??= setTimeout(() => {
          this.dispatchTimer = undefined;
          this.dispatch();
        }, Math.ceil(wait));
        return;
      }
      const run = this.queue.next();
      if (!run) return;
      const process = this.idle.pop()!;
      this.busy.set(process, run);
      run.start(process);
    }
  }

  /**
   * 0 when a query may start now, else how long until one of those running stops counting as just
   * started. No more queries run just started than the machine has cores: most answer in well under
   * a millisecond, and one more woken process would only fight them for the same cores, each waking
   * with cold caches (measured: a small query cost the query processes 441–521 µs of CPU with six
   * processes taking turns, 308–323 with two at most, BENCHMARKS.md). The next query waits for one of them, hot,
   * instead. A query still working after `startingMs` frees its turn, so a slow one delays others by
   * that much at most, and the rest of the pool is there for them as before.
   */
  private startingWait(): number {
    const now = performance.now();
    let starting = 0;
    let first = now;
    for (const run of this.busy.values()) {
      const at = run.times.startedAt;
      if (at === undefined || now - at >= startingMs) continue;
      starting += 1;
      first = Math.min(first, at);
    }
    return starting < this.options.startingAtOnce ? 0 : first + startingMs - now;
  }

  private spawn(): void {
    const process = new QueryProcess(this.options, (p) => this.exited(p));
    this.processes.add(process);
    process.ready.then(
      () => {
        if (process.gone) return;
        this.startFailures = 0;
        this.idle.push(process);
        this.dispatch();
      },
      (err: Error) => {
        this.startFailures += 1;
        this.lastStartError = err.message;
      },
    );
  }

  private exited(process: QueryProcess): void {
    this.processes.delete(process);
    const i = this.idle.indexOf(process);
    if (i !== -1) this.idle.splice(i, 1);
    const run = this.busy.get(process);
    if (run) {
      this.busy.delete(process);
      this.leave(run);
      run.processDied(process);
    }
    if (this.closing) return;
    if (!process.stopped && Date.now() - process.startedAt < quickDeathMs) setTimeout(() => this.closing || this.spawn(), respawnDelayMs);
    else this.spawn();
  }
}
