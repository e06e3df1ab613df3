import { mkdirSync } from 'node:fs';
import type { Transform } from 'node:stream';
import { QueryFailed } from '../errors.js';
import { FairQueue, type FairQueueLimits } from './fair-queue.js';
import { LongLane } from './long-lane.js';
import type { QueryJob } from './protocol.js';
import { QueryProcess, type ProcessLimits } from './query-process.js';
import { QueryRun, type RunHost } from './query-run.js';
import { SendAhead } from './send-ahead.js';
import { ProcessSlot, startingMs } from './slot.js';
import { SpoolBudget } from './spool.js';

/** A process that dies this soon after starting is failing to start; wait before starting another. */
const quickDeathMs = 1000;
const respawnDelayMs = 250;
/** Start-up gives up after this long, or after this many processes died before they were ready. */
const startDeadlineMs = 30_000;
const startFailuresAllowed = 3;
/** A query working longer than this is a long one (exports, big sorts). */
const longAfterMs = 1000;
/**
 * A query nobody waits for any more (its client left, or it was taken back too late) is let finish,
 * its output dropped, when its process has worked on it less than this; one working longer, or not
 * done by then, has its process killed. A process killed costs a new one, ~200 ms of CPU to start and
 * its code cold after, against a query that takes a millisecond or less to end.
 */
export const finishGraceMs = 100;
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
 * 5-20 % faster, uncompressed ones up to 20 %, most when the machine is busy; the run still holds
 * two processes at most.
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
  /** Queries sent ahead to one process at most (send-ahead.ts); 0: none is. */
  queriesAhead: number;
}

/** Query processes could not be started: the message says why (what the last one wrote to stderr). */
export class PoolStartError extends Error {}

/**
 * Runs untrusted queries in a pool of processes, one query per process at a time, fairly between
 * keys (fair-queue.ts). A query past its time limit, or whose client went away, gets its process
 * killed and a fresh one started: only that reliably stops a long SQLite step.
 *
 * Each process is a slot (slot.ts) with its state. Long queries take turns in their lane
 * (long-lane.ts). A query that may not start now may be sent ahead to a busy process (send-ahead.ts).
 *
 * Split exports (query-run.ts): a whole-table export takes a second process only while one is
 * idle, no query waits and its key has a free slot (the second process counts as one of the key's
 * running queries). It gives the second process back at the end of a range as soon as any query
 * waits, so another key waits for it one range at most (about a MB of output).
 */
export class QueryPool implements RunHost {
  private readonly slots = new Set<ProcessSlot>();
  /** The idle slots, the one idle the shortest time last: it is taken first, its caches warmest. */
  private readonly idle: ProcessSlot[] = [];
  private readonly queue: FairQueue<QueryRun>;
  private readonly lane: LongLane;
  private readonly ahead: SendAhead;
  private readonly budget: SpoolBudget;
  private startFailures = 0;
  private lastStartError = '';
  private closing = false;
  /** Dispatches again once a query stops counting as just started. */
  private dispatchTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PoolOptions) {
    mkdirSync(options.tempDir, { recursive: true });
    this.queue = new FairQueue(options.queue);
    this.lane = new LongLane(options.longQueries);
    this.ahead = new SendAhead(options.queriesAhead, this.queue, () => this.dispatch());
    this.budget = new SpoolBudget(options.spoolTotalMb * 2 ** 20);
    for (let i = 0; i < options.size; i++) this.spawn();
  }

  /**
   * Starts a query for `key`; its encoded result is read from the returned stream, which fails with
   * QueryFailed. `mayTakeTwo`: its reader keeps up with two query processes, so a whole-table export
   * may be split over two (split-export.ts); a reader slower than one process gains nothing from it.
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

  /**
   * What the pool is doing now: processes ready, and of them those running a query (one whose client
   * left included: its process is not free until it ends); queries waiting (in the queue, or sent
   * ahead to a process), long and parked ones; and how many queries it has sent ahead so far.
   */
  stats(): { ready: number; busy: number; waiting: number; long: number; parked: number; sentAhead: number } {
    let ready = 0;
    let busy = 0;
    let waiting = this.queue.waiting;
    for (const slot of this.slots) {
      if (slot.state === 'idle' || slot.state === 'running' || slot.state === 'finishing') ready += 1;
      if (slot.state === 'running' || slot.state === 'finishing') busy += 1;
      for (const sent of slot.ahead) if (sent.run) waiting += 1;
    }
    return { ready, busy, waiting, long: this.lane.runningCount, parked: this.lane.parkedCount, sentAhead: this.ahead.sentCount };
  }

  /** Processes started and ready to take a query. */
  get readyCount(): number {
    return this.stats().ready;
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
    await Promise.all([...this.slots].map((slot) => slot.process.kill()));
  }

  /**
   * The slot's run is done with it: its process is free. Still working on the run's job, it is let
   * finish it (its key's slot held until then) if it has worked on it less than `finishGraceMs`,
   * else killed: only a kill stops a query. Its exit starts a replacement.
   */
  free(slot: ProcessSlot): void {
    const run = slot.run!;
    if (slot.working && !slot.process.gone) {
      const left = finishGraceMs - (performance.now() - (run.times.startedAt ?? 0));
      if (left > 0) return slot.finish(left);
    }
    // A process that cannot be given back its normal priority is replaced, as one still working.
    if (slot.working || slot.process.gone || !slot.process.restorePriority()) {
      slot.gone();
      this.leave(run);
      void slot.process.kill();
      return;
    }
    slot.idle();
    this.leave(run);
    this.next(slot);
    this.dispatch();
  }

  withdraw(run: QueryRun): void {
    if (this.queue.remove(run)) return;
    if (this.ahead.withdraw(run)) this.queue.finished(run);
  }

  promote(run: QueryRun): void {
    this.lane.enter(run);
  }

  spare(run: QueryRun): boolean {
    return !this.closing && this.idle.length > 0 && this.queue.waiting === 0 && this.queue.hasSlot(run);
  }

  secondSlot(run: QueryRun): ProcessSlot | undefined {
    if (!this.spare(run)) return undefined;
    this.queue.takeSlot(run);
    const slot = this.idle.pop()!;
    slot.hold(run);
    return slot;
  }

  othersWaiting(): boolean {
    return this.queue.waiting > 0;
  }

  /** The run holds one slot fewer: its key may run another; once it holds none, its place as a long query frees too. */
  private leave(run: QueryRun): void {
    this.queue.finished(run);
    for (const slot of this.slots) if (slot.state === 'running' && slot.run === run) return;
    this.lane.leave(run);
  }

  /** A job nobody waited for has ended (see `ProcessSlot.finish`): the slot goes on to its next. */
  private readonly finished = (slot: ProcessSlot): void => {
    const run = slot.run;
    slot.idle();
    if (run) this.leave(run);
    this.next(slot);
    this.dispatch();
  };

  private dispatch(): void {
    while (this.idle.length > 0 && (this.queue.waiting > 0 || this.ahead.any)) {
      const wait = this.startingWait();
      // A query sent ahead had its turn: it goes first, taken back from where it waits.
      const sent = wait > 0 ? wait : this.ahead.takeBackFirst();
      if (typeof sent === 'number') {
        this.dispatchTimer ??= setTimeout(() => {
          this.dispatchTimer = undefined;
          this.dispatch();
        }, Math.ceil(sent));
        break;
      }
      const run = sent ?? this.queue.next();
      if (!run) break;
      const slot = this.idle.pop()!;
      slot.hold(run);
      run.start(slot);
    }
    if (!this.closing) this.ahead.send(this.slots);
  }

  /**
   * A slot's process is done with its job: it starts the first query sent ahead to it, or waits for
   * its answer to that one's cancel, or is idle. A query taken back that started all the same (the
   * cancel came too late, as it often does for a small one) is let finish (see `ProcessSlot.finish`).
   */
  private next(slot: ProcessSlot): void {
    const first = this.ahead.next(slot);
    if (!first) {
      this.idle.push(slot);
    } else if (first.run) {
      slot.begin(first.run);
      first.run.start(slot, true);
    } else {
      // Those behind it stay: its answer to the cancel most often comes at once, and the watch takes
      // them back if the query was started all the same and takes long.
      slot.finish(finishGraceMs);
    }
  }

  /**
   * 0 when a query may start now, else how long until one of those running stops counting as just
   * started. No more queries run just started than the machine has cores: most answer in well under
   * a millisecond, and one more woken process would only fight them for the same cores, each waking
   * with cold caches (measured: a small query cost the query processes 441–521 µs of CPU with six
   * processes taking turns, 308–323 with two at most). The next query waits for one of them, hot,
   * instead. A query still working after `startingMs` frees its turn, so a slow one delays others by
   * that much at most, and the rest of the pool is there for them as before.
   */
  private startingWait(): number {
    const now = performance.now();
    let starting = 0;
    let first = now;
    for (const slot of this.slots) {
      const at = slot.startedAt;
      if (at === undefined || now - at >= startingMs) continue;
      starting += 1;
      first = Math.min(first, at);
    }
    return starting < this.options.startingAtOnce ? 0 : first + startingMs - now;
  }

  private spawn(): void {
    let slot: ProcessSlot;
    try {
      slot = new ProcessSlot(new QueryProcess(this.options, () => this.exited(slot)), this.finished);
    } catch (err) {
      // Nothing started (no room for its socket's folder, say): a failed start, tried again.
      this.startFailed(err as Error);
      setTimeout(() => this.closing || this.spawn(), respawnDelayMs);
      return;
    }
    this.slots.add(slot);
    slot.process.ready.then(
      () => {
        if (slot.process.gone) return;
        this.startFailures = 0;
        slot.idle();
        this.idle.push(slot);
        this.dispatch();
      },
      (err: Error) => this.startFailed(err),
    );
  }

  /** A process that could not start: `ready()` gives up after a few in a row, with the last one's reason. */
  private startFailed(err: Error): void {
    this.startFailures += 1;
    this.lastStartError = err.message;
  }

  private exited(slot: ProcessSlot): void {
    this.slots.delete(slot);
    const { run, state, process } = slot;
    const orphans = this.ahead.orphans(slot);
    slot.gone();
    const i = this.idle.indexOf(slot);
    if (i !== -1) this.idle.splice(i, 1);
    if (run) {
      // The run it worked for, or the one whose job it was finishing, holds it no more.
      this.leave(run);
      if (state === 'running') run.processDied(slot);
    }
    if (this.closing) {
      for (const run of orphans) run.fail(new QueryFailed({ kind: 'closing' }));
      return;
    }
    if (!process.stopped && Date.now() - process.startedAt < quickDeathMs) setTimeout(() => this.closing || this.spawn(), respawnDelayMs);
    else this.spawn();
    // Sent ahead, they never started: they wait again.
    if (orphans.length > 0) this.ahead.requeue(orphans);
  }
}
