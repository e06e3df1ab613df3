import { mkdirSync } from 'node:fs';
import type { Transform } from 'node:stream';
import { QueryFailed } from '../errors.js';
import { FairQueue } from './fair-queue.js';
import { LongLane } from './long-lane.js';
import type { QueryJob } from './protocol.js';
import { QueryProcess } from './query-process.js';
import { QueryRun } from './query-run.js';
import type { RunHost, RunOptions } from './run-host.js';
import { SendAhead } from './send-ahead.js';
import { ProcessStarts } from './process-starts.js';
import { ProcessSlot, untilOneMayStart } from './slot.js';
import { runOptions, type PoolOptions } from './pool-options.js';

export type { PoolOptions } from './pool-options.js';
export { PoolStartError } from './process-starts.js';

/**
 * Runs untrusted queries in a pool of processes, one query per process at a time, fairly between keys
 * (fair-queue.ts). A query past its time limit, or whose client went away, gets its process killed and
 * a fresh one started: only that reliably stops a long SQLite step. Each process is a slot (slot.ts);
 * long queries take turns in their lane (long-lane.ts); a query that may not start now may be sent
 * ahead to a busy process (send-ahead.ts); a whole-table export may take a spare second (split-export.ts).
 */
export class QueryPool implements RunHost {
  private readonly slots = new Set<ProcessSlot>();
  /** The idle slots, the one idle the shortest time last: it is taken first, its caches warmest. */
  private readonly idle: ProcessSlot[] = [];
  private readonly queue: FairQueue<QueryRun>;
  private readonly lane: LongLane;
  private readonly ahead: SendAhead;
  /** What each run is made with: one whose reader keeps up with two processes, and one whose does not. */
  private readonly runOptions: { split: RunOptions; unsplit: RunOptions };
  private readonly starts = new ProcessStarts(this.spawn.bind(this), () => this.closing);
  private closing = false;
  /** Dispatches again once a query stops counting as just started. */
  private dispatchTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PoolOptions) {
    mkdirSync(options.tempDir, { recursive: true });
    this.queue = new FairQueue(options.queue);
    this.lane = new LongLane(options.longQueries);
    this.ahead = new SendAhead(options.queriesAhead, this.queue, () => this.dispatch());
    this.runOptions = runOptions(options);
    for (let i = 0; i < options.size; i++) this.spawn();
  }

  /**
   * Starts a query for `key`; its encoded result is read from the returned stream, which fails with
   * QueryFailed. `mayTakeTwo`: its reader keeps up with two processes, so a whole-table export may be
   * split over two (split-export.ts). `compressor`: the output goes through it before it is spooled.
   */
  run(job: QueryJob, key: string, mayTakeTwo = false, compressor?: Transform): QueryRun {
    const run = new QueryRun(this, job, key, mayTakeTwo ? this.runOptions.split : this.runOptions.unsplit, compressor);
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
    const stats = {
      ready: 0,
      busy: 0,
      waiting: this.queue.waiting,
      long: this.lane.runningCount,
      parked: this.lane.parkedCount,
      sentAhead: this.ahead.sentCount,
    };
    for (const slot of this.slots) {
      const busy = slot.state === 'running' || slot.state === 'finishing';
      if (busy || slot.state === 'idle') stats.ready += 1;
      if (busy) stats.busy += 1;
      for (const sent of slot.ahead) if (sent.run) stats.waiting += 1;
    }
    return stats;
  }

  /** Processes started and ready to take a query. */
  get readyCount(): number {
    return this.stats().ready;
  }

  /** Once every process has started; PoolStartError when they cannot (a memory cap too small for Node, say). */
  ready(): Promise<void> {
    return this.starts.ready(() => this.readyCount, this.options.size);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.dispatchTimer);
    this.queue.drain(new QueryFailed({ kind: 'closing' }));
    await Promise.all([...this.slots].map((slot) => slot.process.kill()));
  }

  /**
   * The slot's run is done with it: its process is free. Still working on the run's job, it is let
   * finish it (its key's slot held until then) if it has only just started (slot.ts's `finishGraceMs`),
   * else killed: only a kill stops a query. Its exit starts a replacement.
   */
  free(slot: ProcessSlot): void {
    const run = slot.run!;
    if (slot.working && !slot.process.gone && slot.mayFinish(run.times.startedAt ?? 0)) return;
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
      const wait = untilOneMayStart(this.slots, this.options.startingAtOnce);
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
      slot.finish();
    }
  }

  private spawn(): void {
    let slot: ProcessSlot;
    try {
      slot = new ProcessSlot(new QueryProcess(this.options, () => this.exited(slot)), this.finished);
    } catch (err) {
      // Nothing started (no room for its socket's folder, say): a failed start, tried again.
      this.starts.failed(err as Error, true);
      return;
    }
    this.slots.add(slot);
    slot.process.ready.then(
      () => {
        if (slot.process.gone) return;
        this.starts.started();
        slot.idle();
        this.idle.push(slot);
        this.dispatch();
      },
      (err: Error) => this.starts.failed(err),
    );
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
    this.starts.replace(process);
    // Sent ahead, they never started: they wait again.
    if (orphans.length > 0) this.ahead.requeue(orphans);
  }
}
