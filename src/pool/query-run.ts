import { Readable, type Transform } from 'node:stream';
import { QueryFailed, type QueryFailure } from '../errors.js';
import type { QueueItem } from './fair-queue.js';
import { CompressingSpool } from './compressing-spool.js';
import { crc32Combine } from './crc32-combine.js';
import { FrameType, type Deflated, type EndPayload, type ErrorPayload, type Frame, type QueryJob, type RangePlan } from './protocol.js';
import type { ProcessSlot } from './slot.js';
import { RangeOrder } from './range-order.js';
import { mayBeSplit, rangeCount, rangeOf } from './ranges.js';
import { Spool, type SpoolOptions } from './spool.js';

/** How a query ended, for the log and the metrics' `outcome` label: a closed set, none of it a client's text. */
export type QueryOutcome = 'ok' | 'cancelled' | QueryFailure['kind'];

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
  /** Output of a range not yet due held in memory, at most, before its process waits for its turn. */
  holdBytes: number;
  /** Ranges that may start beyond the one being sent (range-order.ts). */
  rangesAhead: number;
  /** Compresses the output before it is spooled (compressing-spool.ts): the run's stream is then compressed. */
  compressor?: Transform;
}

function failureFrom(p: ErrorPayload): QueryFailure {
  switch (p.kind) {
    case 'sql':
      return { kind: 'sql', message: p.message };
    case 'not-read':
      return { kind: 'not-read' };
    case 'columns':
      return { kind: 'columns', missing: p.missing ?? [] };
    case 'resources':
      return { kind: 'resources' };
    case 'internal':
      return { kind: 'internal', message: p.message, stack: p.stack };
  }
}

/**
 * One query: waiting for a process, then running in it, then (maybe after its process has moved
 * on) being read by its client. Its encoded result is this stream, fed from a spool, so how fast the
 * client reads never holds the process. The time limit counts every moment the query holds a
 * process (a full spool too), except while it is parked as a long query in excess.
 *
 * A whole-table export may be split (ranges.ts): its first process answers with a plan of rowid
 * ranges, and while it runs one range a second process, when the pool can spare one, runs another.
 * Ranges go to the spool strictly in order; output not yet due waits in memory (RangeOrder). The run
 * holds both processes' slots, limits and fate: a failure, timeout or cancel in either ends both.
 */
export class QueryRun extends Readable implements QueueItem {
  /** Rows sent, once the query has completed. */
  rows: number | null = null;
  /** For a deflating job, once it has completed: what was deflated, over all its ranges in order. */
  deflated: Deflated | undefined;
  /** For a deflating job: the bytes its processes have deflated so far. */
  private deflatedBytes = 0;
  /**
   * When it was queued, got a process and let it go (performance.now()), how it ended, and the
   * ranges it was split into if it was: for the log and the metrics.
   */
  readonly times: { queuedAt: number; startedAt?: number; endedAt?: number; outcome?: QueryOutcome; ranges?: number } = {
    queuedAt: performance.now(),
  };
  /** Its processes, each with the range it runs (undefined: the whole query, or its plan). */
  private readonly workers = new Map<ProcessSlot, number | undefined>();
  private plan: RangePlan | undefined;
  private order: RangeOrder | undefined;
  private rowsSent = 0;
  /** What each range (0: an unsplit query) deflated, as their ends come, in any order. */
  private readonly rangesDeflated = new Map<number, Deflated>();
  /** Processes told to wait: for room in the spool, or until output their range holds goes out. */
  private readonly paused = new Set<ProcessSlot>();
  private roomAwaited = false;
  /** The run's last process, kept while no range may start (its output waits for the spool): it runs the next. */
  private kept: ProcessSlot | undefined;
  private long = false;
  private parked = false;
  /** Its first process was asked for a plan of ranges: it may take a second. */
  private splitAsked = false;
  private maySplit: boolean | undefined;
  private readonly spool: Spool | CompressingSpool;
  private remainingMs: number;
  private clock: NodeJS.Timeout | undefined;
  private clockStartedAt = 0;
  /** The pool was told it is a long query (`longAfterMs`). */
  private promoted = false;
  private reading = false;

  constructor(
    private readonly host: RunHost,
    readonly job: QueryJob,
    readonly key: string,
    private readonly options: RunOptions,
  ) {
    super();
    this.remainingMs = options.timeoutMs;
    const spool = new Spool(options.spool);
    this.spool = options.compressor ? new CompressingSpool(spool, options.compressor) : spool;
  }

  /** For a run whose body is compressed (deflated in its processes, or by its compressor): its bytes so far before compression. */
  get inflatedBytes(): number {
    return this.spool instanceof CompressingSpool ? this.spool.bytesIn : this.deflatedBytes;
  }

  fail(error: QueryFailed): void {
    this.destroy(error);
  }

  /** Whether the run may be sent ahead of its turn (pool.ts): a query that may be split waits for a process of its own. */
  get mayGoAhead(): boolean {
    return !this.splittable;
  }

  /** Whether a job may be sent ahead to its process, to run after it: it runs in one process, unsplit. */
  get mayBeFollowed(): boolean {
    return !this.splitAsked;
  }

  /**
   * A whole-table query that may be split over two processes (ranges.ts), when one can be spared.
   * Known once asked: the pool asks it of each key's next query whenever it looks for one to send ahead.
   */
  private get splittable(): boolean {
    return (this.maySplit ??= this.options.rowsPerRange > 0 && mayBeSplit(this.job));
  }

  /** The run has its process: its job is sent (unless it was sent ahead), and its time limit runs. */
  start(slot: ProcessSlot, sentAhead = false): void {
    this.times.startedAt = performance.now();
    if (sentAhead) {
      this.workers.set(slot, undefined);
    } else {
      // The pool's answer first: it is the cheaper question, and most often no (small queries come in crowds).
      this.splitAsked = this.host.spare(this) && this.splittable;
      this.work(slot, this.splitAsked ? { ...this.job, split: { rowsPerRange: this.options.rowsPerRange } } : this.job, undefined);
    }
    this.startClock();
  }

  /** A long query: its processes run at a lower CPU priority, a second one taken later too. */
  lowerPriority(): void {
    this.long = true;
    for (const slot of this.workers.keys()) slot.process.lowerPriority();
  }

  /** Frozen as a long query in excess: its time does not run. */
  park(): void {
    this.parked = true;
    this.stopClock();
    for (const slot of this.workers.keys()) slot.process.freeze();
  }

  unpark(): void {
    this.parked = false;
    this.lowerPriority();
    for (const slot of this.workers.keys()) slot.process.thaw();
    this.startClock();
    this.startNext();
  }

  /** One of its processes died while running it (out of memory, or killed from outside). */
  processDied(slot: ProcessSlot): void {
    this.workers.delete(slot);
    if (this.kept === slot) this.kept = undefined;
    this.destroy(new QueryFailed({ kind: 'resources' }));
  }

  override _read(): void {
    if (this.reading) return;
    this.reading = true;
    this.spool.read().then(
      (chunk) => {
        this.reading = false;
        if (!this.destroyed) this.push(chunk);
      },
      (err: Error) => {
        this.reading = false;
        this.destroy(new QueryFailed({ kind: 'internal', message: `spool: ${err.message}`, stack: err.stack }));
      },
    );
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.ended(err instanceof QueryFailed ? err.failure.kind : 'cancelled');
    this.stopClock();
    this.host.withdraw(this);
    const slots = [...this.workers.keys()];
    this.workers.clear();
    // The kept slot runs nothing: it is free at once, the others once their job is over.
    if (this.kept) slots.push(this.kept);
    this.kept = undefined;
    for (const slot of slots) this.host.free(slot);
    this.spool.close();
    callback(err);
  }

  /** Gives the slot the job, for `range` of the query: its frames are this run's from now on. */
  private work(slot: ProcessSlot, job: QueryJob, range: number | undefined): void {
    this.workers.set(slot, range);
    slot.work(this, job);
  }

  /** A frame of the job a slot runs for this run. */
  onFrame(slot: ProcessSlot, frame: Frame): void {
    if (!this.workers.has(slot)) return;
    switch (frame.type) {
      case FrameType.plan:
        this.plan = JSON.parse(frame.payload.toString()) as RangePlan;
        this.times.ranges = rangeCount(this.plan);
        this.order = new RangeOrder(this.times.ranges, this.options.holdBytes, this.options.rangesAhead);
        this.workers.set(slot, this.order.take());
        this.startNext();
        break;
      case FrameType.data:
        this.output(slot, frame.payload);
        break;
      case FrameType.inflated:
        this.deflatedBytes += frame.payload.readUInt32BE(0);
        break;
      case FrameType.end: {
        const end = JSON.parse(frame.payload.toString()) as EndPayload;
        this.rowsSent += end.rows;
        if (end.deflated) this.rangesDeflated.set(this.workers.get(slot) ?? 0, end.deflated);
        this.rangeEnded(slot);
        break;
      }
      case FrameType.error: {
        const failure = failureFrom(JSON.parse(frame.payload.toString()) as ErrorPayload);
        this.ended(failure.kind);
        this.letGo(slot);
        this.destroy(new QueryFailed(failure));
        break;
      }
    }
  }

  /** Output of a process: to the spool if it is due, else held until it is. */
  private output(slot: ProcessSlot, data: Buffer): void {
    const range = this.workers.get(slot);
    if (this.order && range !== undefined && this.order.holds(range)) {
      if (!this.order.hold(range, data)) this.holdBack(slot);
    } else if (!this.spool.append(data)) {
      // Full: the process waits for the client now, and that wait is the query's time.
      this.holdBack(slot);
    }
  }

  private holdBack(slot: ProcessSlot): void {
    slot.process.pauseOutput();
    this.paused.add(slot);
    this.awaitRoom();
  }

  /** Once a full spool has room again: held output goes to it, and what waited goes on. */
  private awaitRoom(): void {
    if (this.roomAwaited || !this.spool.full) return;
    this.roomAwaited = true;
    this.spool.onRoom(() => {
      this.roomAwaited = false;
      this.flush();
      this.startNext();
    });
  }

  /**
   * Moves held output to the spool while it has room (never past its caps), ends the spool once a
   * split query's last output is in it, and lets paused processes whose wait is over go on.
   */
  private flush(): void {
    const order = this.order;
    if (order) {
      for (let data = this.spool.full ? undefined : order.due(); data; data = this.spool.full ? undefined : order.due()) {
        this.spool.append(data);
      }
      if (order.done) this.spool.end();
    }
    for (const slot of this.paused) {
      const range = this.workers.get(slot);
      const held = order !== undefined && range !== undefined && order.holds(range);
      if (held ? order.mayGoOn(range) : !this.spool.full) {
        this.paused.delete(slot);
        slot.process.resumeOutput();
      }
    }
    this.awaitRoom();
  }

  /** A process ended its part: the whole query, or a range. */
  private rangeEnded(slot: ProcessSlot): void {
    const order = this.order;
    if (!order) {
      this.completed();
      this.letGo(slot);
      this.spool.end();
      return;
    }
    order.end(this.workers.get(slot)!);
    if (order.allStarted && this.workers.size === 1) {
      // Every range has ended: the query is done, and what is held goes out as the spool takes it.
      this.completed();
      this.letGo(slot);
    } else if (order.startable && !(this.workers.size > 1 && this.host.othersWaiting())) {
      this.runRange(slot, order.take());
    } else if (this.workers.size > 1) {
      // A second process goes back to the pool: for anyone waiting, or until a range may start.
      this.letGo(slot);
    } else {
      this.workers.delete(slot);
      this.paused.delete(slot);
      slot.process.resumeOutput();
      this.kept = slot;
    }
    this.flush();
    this.startNext();
  }

  /** Starts the ranges that may start: in the run's kept process, then in one the pool can spare. */
  private startNext(): void {
    // A parked run starts nothing: it goes on where it was once unparked.
    if (this.parked) return;
    if (this.kept && this.order?.startable) {
      const slot = this.kept;
      this.kept = undefined;
      this.runRange(slot, this.order.take());
    }
    this.recruit();
  }

  /** Takes a second process while a range may start and the pool can spare one: never a third. */
  private recruit(): void {
    while (this.order?.startable && this.workers.size < 2) {
      const helper = this.host.secondSlot(this);
      if (!helper) return;
      if (this.long) helper.process.lowerPriority();
      this.runRange(helper, this.order.take());
    }
  }

  private runRange(slot: ProcessSlot, range: number): void {
    this.work(slot, { ...this.job, range: rangeOf(this.plan!, range) }, range);
  }

  /** Every row is made: the time limit stops, what is left is the client's reading. */
  private completed(): void {
    this.rows = this.rowsSent;
    if (this.job.deflate) this.deflated = this.allDeflated();
    this.ended('ok');
    this.stopClock();
  }

  /**
   * What the ranges deflated, as one: their CRCs combined in order. Undefined if one's end did not
   * say (a bug of ours): the gzip body is then cut short rather than given a trailer made up.
   */
  private allDeflated(): Deflated | undefined {
    let all: Deflated = { crc: 0, bytes: 0 };
    for (let range = 0; range < (this.order?.count ?? 1); range++) {
      const part = this.rangesDeflated.get(range);
      if (!part) return undefined;
      all = { crc: crc32Combine(all.crc, part.crc, part.bytes), bytes: all.bytes + part.bytes };
    }
    return all;
  }

  /** The first end said is the one: a run destroyed after its process finished has already ended. */
  private ended(outcome: QueryOutcome): void {
    if (this.times.outcome !== undefined) return;
    this.times.endedAt = performance.now();
    this.times.outcome = outcome;
  }

  /** The process is done with this query and can take another. */
  private letGo(slot: ProcessSlot): void {
    this.workers.delete(slot);
    this.paused.delete(slot);
    slot.process.resumeOutput();
    this.host.free(slot);
  }

  /**
   * Runs the time limit, and until it has become a long query, the time until it does: one timer
   * for both, a timer fewer for every query (most end long before either).
   */
  private startClock(): void {
    if (this.clock) return;
    this.clockStartedAt = Date.now();
    const untilLong = this.promoted ? Infinity : this.options.longAfterMs - this.workedMs();
    this.clock = setTimeout(() => this.clockDue(), Math.max(0, Math.min(this.remainingMs, untilLong)));
  }

  private workedMs(): number {
    return performance.now() - (this.times.startedAt ?? 0);
  }

  /** Its time is up, or it has become a long query: the pool may park it, which stops its clock. */
  private clockDue(): void {
    this.stopClock();
    if (this.remainingMs <= 0) {
      this.destroy(new QueryFailed({ kind: 'timeout', seconds: this.options.timeoutMs / 1000 }));
      return;
    }
    if (!this.promoted && this.workedMs() >= this.options.longAfterMs) {
      this.promoted = true;
      this.host.promote(this);
    }
    if (!this.parked) this.startClock();
  }

  private stopClock(): void {
    if (!this.clock) return;
    clearTimeout(this.clock);
    this.clock = undefined;
    this.remainingMs -= Date.now() - this.clockStartedAt;
  }
}
