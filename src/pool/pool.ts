import { mkdirSync } from 'node:fs';
import type { Transform } from 'node:stream';
import { QueryFailed } from '../errors.js';
import { FairQueue, type FairQueueLimits } from './fair-queue.js';
import { FrameType, type Frame, type QueryJob } from './protocol.js';
import { QueryProcess, type ProcessLimits } from './query-process.js';
import { QueryRun, type RunHost } from './query-run.js';
import { relayBuffers } from './relay-buffers.js';
import { SpoolBudget } from './spool.js';

/** A query sent ahead to a process, with its number there (see `QueryPool.ahead`). */
interface Sent {
  run: QueryRun | undefined;
  id: number;
  /** When it was sent (performance.now()). */
  at: number;
}

/** The queries sent ahead to one process, in the order sent; `timer`: the next look at how long they have waited (see `QueryPool.watch`). */
interface Waiting {
  sent: Sent[];
  timer?: NodeJS.Timeout;
}

/** The first query of `waiting` not taken back: the one that has waited longest. */
function firstLive(waiting: Waiting): Sent | undefined {
  for (const sent of waiting.sent) if (sent.run) return sent;
  return undefined;
}

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
/**
 * A query sent ahead to a process whose query has worked this long is taken back for an idle
 * process that may start one; before, it most likely starts where it is sooner (a small query takes
 * well under a millisecond), and the idle process waits for it rather than take another's turn.
 */
const takeBackAfterMs = 2;
/**
 * Queries sent ahead to one process at most. With several waiting there, a process reads them in
 * one go and runs them one after the other without sleeping, and the server reads their answers
 * in fewer reads and writes them to their clients in a row: fewer processes woken, each costly on
 * a virtual machine. Small queries, alternated on one machine: 8 rather than 1, +15 % a second
 * and 11 % less of the server's CPU per query, the p99 a few ms higher (BENCHMARKS.md, twentieth round).
 */
export const maxAhead = 8;
/**
 * A query nobody waits for any more (its client left, or it was taken back too late) is let finish,
 * its output dropped, when its process has worked on it less than this; one working longer, or not
 * done by then, has its process killed. A process killed costs a new one: ~200 ms of CPU to start
 * and its code cold after (BENCHMARKS.md, seventeenth round), against a query that takes a
 * millisecond or less to end; before, every client leaving during a small query cost that.
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
 *
 * Sent ahead: a query that may not start now (every process busy, or as many just started as
 * allowed) is sent to a process whose query has just started, `maxAhead` at most to each, to run
 * as soon as those before it end: the process reads it without going to sleep, and the server's
 * send wakes nobody (BENCHMARKS.md, eleventh and twentieth rounds). It takes its key's slot as if
 * it ran. Once the first query waiting in a process has waited `startingMs`, all those waiting
 * there are taken back (cancelled in that process, queued again first of their keys'): a query
 * waits sent ahead `startingMs` at most, behind a slow one or behind many.
 */
export class QueryPool implements RunHost {
  private readonly processes = new Set<QueryProcess>();
  private readonly idle: QueryProcess[] = [];
  private readonly busy = new Map<QueryProcess, QueryRun>();
  private readonly queue: FairQueue<QueryRun>;
  private readonly long = new Set<QueryRun>();
  private readonly parked: QueryRun[] = [];
  private readonly budget: SpoolBudget;
  /**
   * The queries sent ahead to a busy process, in the order sent, each with its number there; `run`
   * undefined: taken back, its process's answer to the cancel (a skipped frame) still to come.
   */
  private readonly ahead = new Map<QueryProcess, Waiting>();
  /**
   * Processes finishing a query nobody waits for (see `finish`), each with what to do once it is
   * over, ended or killed: neither idle nor busy, and ready all the same.
   */
  private readonly finishing = new Map<QueryProcess, () => void>();
  private sentAheadCount = 0;
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
    return this.idle.length + this.busy.size + this.finishing.size;
  }

  /**
   * What the pool is doing now: processes running a query (one whose client left included: its
   * process is not free until it ends), queries waiting (in the queue, or sent ahead to a process),
   * long and parked ones; and how many queries it has sent ahead so far.
   */
  stats(): { ready: number; busy: number; waiting: number; long: number; parked: number; sentAhead: number } {
    let sent = 0;
    for (const waiting of this.ahead.values()) for (const { run } of waiting.sent) if (run) sent += 1;
    return {
      ready: this.readyCount,
      busy: this.busy.size + this.finishing.size,
      waiting: this.queue.waiting + sent,
      long: this.long.size,
      parked: this.parked.length,
      sentAhead: this.sentAheadCount,
    };
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
    // Its exit starts a replacement at normal priority (and queues again what was sent ahead to it).
    if (!process.restorePriority()) void process.kill();
    else this.next(process);
    this.dispatch();
  }

  abandon(run: QueryRun, process: QueryProcess): void {
    this.busy.delete(process);
    const left = finishGraceMs - (performance.now() - (run.times.startedAt ?? 0));
    if (left <= 0 || process.gone) {
      this.leave(run);
      void process.kill();
      return;
    }
    // A process whose output was paused (its client was slow) would never end its query.
    process.resumeOutput();
    // Its key's slot is held until it ends: a key cannot hold more processes by leaving its queries.
    this.finish(process, left, () => this.leave(run));
  }

  unqueue(run: QueryRun): void {
    if (this.queue.remove(run)) return;
    // Every run that ends comes here: plain loops, which allocate nothing.
    for (const [process, waiting] of this.ahead) {
      for (const sent of waiting.sent) {
        if (sent.run !== run) continue;
        // Sent ahead and not started: taken back, its slot free.
        this.takeBack(process, sent);
        this.queue.finished(run);
        return;
      }
    }
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
    while (this.idle.length > 0 && (this.queue.waiting > 0 || this.ahead.size > 0)) {
      const wait = this.startingWait();
      // A query sent ahead had its turn: it goes first, taken back from where it waits.
      const sent = wait > 0 ? wait : this.takeBackSent();
      if (typeof sent === 'number') {
        this.dispatchTimer ??= setTimeout(() => {
          this.dispatchTimer = undefined;
          this.dispatch();
        }, Math.ceil(sent));
        break;
      }
      const run = sent ?? this.queue.next();
      if (!run) break;
      const process = this.idle.pop()!;
      this.busy.set(process, run);
      run.start(process);
    }
    this.sendAhead();
  }

  /**
   * The query sent ahead the longest ago, taken back from its process (its key's slot kept); or, if
   * that process's query has not worked `takeBackAfterMs` yet, how long until it has; undefined if
   * none waits.
   */
  private takeBackSent(): QueryRun | number | undefined {
    for (const [process, waiting] of this.ahead) {
      const sent = firstLive(waiting);
      if (!sent) continue;
      const run = sent.run!;
      const worked = performance.now() - (this.busy.get(process)?.times.startedAt ?? 0);
      if (worked < takeBackAfterMs) return takeBackAfterMs - worked;
      this.takeBack(process, sent);
      return run;
    }
    return undefined;
  }

  /** Sends waiting queries ahead to processes whose query has just started, `maxAhead` each (see the class). */
  private sendAhead(): void {
    if (this.queue.waiting === 0 || this.closing) return;
    const now = performance.now();
    for (const [process, current] of this.busy) {
      const startedAt = current.times.startedAt;
      if (!current.mayBeFollowed || startedAt === undefined || now - startedAt >= startingMs) continue;
      const waiting: Waiting = this.ahead.get(process) ?? { sent: [] };
      while (waiting.sent.length < maxAhead) {
        const run = this.queue.next((r) => r.mayGoAhead);
        if (!run) break;
        waiting.sent.push({ run, id: run.sendAhead(process), at: now });
        this.sentAheadCount += 1;
      }
      if (waiting.sent.length > 0) {
        this.ahead.set(process, waiting);
        waiting.timer ??= this.watch(process, waiting, startingMs);
      }
      if (this.queue.waiting === 0) return;
    }
  }

  /**
   * Looks in `afterMs` at the queries waiting in `process`: once the first of them has waited
   * `startingMs` (the query before it is slow, or those before it add up), all are taken back,
   * queued again, and the process is left to its query; until then, it looks again when that one
   * will have. So no query waits sent ahead longer than a query counts as just started.
   */
  private watch(process: QueryProcess, waiting: Waiting, afterMs: number): NodeJS.Timeout {
    return setTimeout(() => {
      waiting.timer = undefined;
      const first = firstLive(waiting);
      if (this.ahead.get(process) !== waiting || !first) return;
      const left = first.at + startingMs - performance.now();
      if (left > 0) waiting.timer = this.watch(process, waiting, left);
      else this.takeBackAll(process, waiting.sent);
    }, afterMs);
  }

  /** Takes back every query still sent ahead in `sent`, queued again first of their keys' in the order sent. */
  private takeBackAll(process: QueryProcess, sent: Sent[]): void {
    const taken: QueryRun[] = [];
    for (const one of sent) {
      if (!one.run) continue;
      taken.push(one.run);
      this.takeBack(process, one);
    }
    this.requeueInOrder(taken);
  }

  /** Queues again queries that were sent ahead, first of their keys', in the order they were sent. */
  private requeueInOrder(runs: QueryRun[]): void {
    for (let i = runs.length - 1; i >= 0; i--) this.queue.requeue(runs[i]!);
    this.dispatch();
  }

  /** Cancels a query sent ahead to `process`: the process answers with a skipped frame (see `next`). */
  private takeBack(process: QueryProcess, sent: Sent): void {
    sent.run = undefined;
    process.cancel(sent.id);
  }

  /**
   * A process is done with its query: it starts the first sent ahead to it, or waits for its answer
   * to that one's cancel, or is idle. A query taken back that started all the same (the cancel came
   * too late, as it often does for a small one) is let finish (see `finish`).
   */
  private next(process: QueryProcess): void {
    const waiting = this.ahead.get(process);
    const first = waiting?.sent.shift();
    if (!waiting || !first) {
      this.idle.push(process);
      return;
    }
    if (waiting.sent.length === 0) {
      clearTimeout(waiting.timer);
      this.ahead.delete(process);
    }
    if (first.run) {
      this.busy.set(process, first.run);
      first.run.start(process, true);
    } else {
      // Those behind it stay: its answer to the cancel most often comes at once, and the watch takes
      // them back if the query was started all the same and takes long.
      this.finish(process, finishGraceMs, () => {});
    }
  }

  /**
   * Lets `process` end the job it runs, which nobody waits for: its output is dropped until the job's
   * last frame, then `over` runs and the process goes on to its next job. Not ended within
   * `withinMs`, it is killed (`over` runs then, from `exited`).
   */
  private finish(process: QueryProcess, withinMs: number, over: () => void): void {
    const timer = setTimeout(() => {
      // Its last frames may still come before it is gone: it must not be given another job.
      process.onFrame = () => {};
      void process.kill();
    }, withinMs);
    this.finishing.set(process, () => {
      clearTimeout(timer);
      this.finishing.delete(process);
      process.onFrame = () => {};
      over();
    });
    process.onFrame = (frame: Frame) => {
      if (frame.type === FrameType.data) relayBuffers.release(frame.payload);
      if (frame.type !== FrameType.skipped && frame.type !== FrameType.end && frame.type !== FrameType.error) return;
      this.finishing.get(process)!();
      this.next(process);
      this.dispatch();
    };
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
    let process: QueryProcess;
    try {
      process = new QueryProcess(this.options, (p) => this.exited(p));
    } catch (err) {
      // Nothing started (no room for its socket's folder, say): a failed start, tried again.
      this.startFailed(err as Error);
      setTimeout(() => this.closing || this.spawn(), respawnDelayMs);
      return;
    }
    this.processes.add(process);
    process.ready.then(
      () => {
        if (process.gone) return;
        this.startFailures = 0;
        this.idle.push(process);
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

  private exited(process: QueryProcess): void {
    this.processes.delete(process);
    this.finishing.get(process)?.();
    const waiting = this.ahead.get(process);
    clearTimeout(waiting?.timer);
    const sent = (waiting?.sent ?? []).flatMap(({ run }) => (run ? [run] : []));
    this.ahead.delete(process);
    const i = this.idle.indexOf(process);
    if (i !== -1) this.idle.splice(i, 1);
    const run = this.busy.get(process);
    if (run) {
      this.busy.delete(process);
      this.leave(run);
      run.processDied(process);
    }
    if (this.closing) {
      for (const run of sent) run.fail(new QueryFailed({ kind: 'closing' }));
      return;
    }
    if (!process.stopped && Date.now() - process.startedAt < quickDeathMs) setTimeout(() => this.closing || this.spawn(), respawnDelayMs);
    else this.spawn();
    // Sent ahead, they never started: they wait again.
    if (sent.length > 0) this.requeueInOrder(sent);
  }
}
