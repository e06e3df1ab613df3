import { Readable, type Transform } from 'node:stream';
import { QueryFailed, type QueryFailure } from '../errors.js';
import type { QueueItem } from './fair-queue.js';
import { CompressingSpool } from './compressing-spool.js';
import { failureFrom, FrameType } from './protocol.js';
import type { Deflated, EndPayload, ErrorPayload, Frame, QueryJob, RangePlan } from './protocol.js';
import type { RunHost, RunOptions } from './run-host.js';
import { mayBeSplit, rangeCount } from './ranges.js';
import { RunClock } from './run-clock.js';
import type { ProcessSlot } from './slot.js';
import { SplitExport, type SplitOwner } from './split-export.js';
import { Spool } from './spool.js';

/** How a query ended, for the log and the metrics' `outcome` label: a closed set, none of it a client's text. */
export type QueryOutcome = 'ok' | 'cancelled' | QueryFailure['kind'];

/**
 * One query: waiting for a process, running in it, then read by its client (maybe after its process
 * has moved on) from this stream, fed from a spool: how fast the client reads never holds the
 * process. The time limit (run-clock.ts) counts every moment it holds a process (a full spool too),
 * but while parked as a long query in excess. One process runs it, unless the first answers with a
 * plan of ranges: the rest is then a split export's (split-export.ts), over two, behind this stream.
 */
export class QueryRun extends Readable implements QueueItem {
  /** Rows sent, once the query has completed. */
  rows: number | null = null;
  /** For a deflating job, once it has completed: what was deflated, over all its ranges in order. */
  deflated: Deflated | undefined;
  /** When it was queued, got a process and let it go (performance.now()), how it ended, its ranges if split: for the log and metrics. */
  readonly times: { queuedAt: number; startedAt?: number; endedAt?: number; outcome?: QueryOutcome; ranges?: number } = {
    queuedAt: performance.now(),
  };
  /** For a deflating job, the bytes its processes have deflated so far. */
  private deflatedBytes = 0;
  /** The slot running it, unsplit; or its work once split. */
  private slot: ProcessSlot | undefined;
  private split: SplitExport | undefined;
  /** Its first process was asked for a plan of ranges: it may take a second. */
  private splitAsked = false;
  private maySplit: boolean | undefined;
  private readonly spool: Spool | CompressingSpool;
  private readonly clock: RunClock;
  private roomAwaited = false;
  private long = false;
  private parked = false;
  private reading = false;

  constructor(
    private readonly host: RunHost,
    readonly job: QueryJob,
    readonly key: string,
    private readonly options: RunOptions,
    /** Compresses the output before it is spooled (compressing-spool.ts): the run's stream is then compressed. */
    compressor?: Transform,
  ) {
    super();
    this.clock = new RunClock(options.timeoutMs, options.longAfterMs, (what) =>
      what === 'long' ? this.host.promote(this) : this.destroy(new QueryFailed({ kind: 'timeout', seconds: options.timeoutMs / 1000 })),
    );
    const spool = new Spool(options.spool);
    this.spool = compressor ? new CompressingSpool(spool, compressor) : spool;
  }

  /** For a run whose body is compressed (deflated in its processes, or by its compressor): its bytes so far before compression. */
  get inflatedBytes(): number {
    return this.spool instanceof CompressingSpool ? this.spool.bytesIn : this.deflatedBytes;
  }

  readonly fail = (error: QueryFailed): void => void this.destroy(error);

  /** Whether the run may wait sent ahead to another's process (send-ahead.ts): one that may be split waits for a process of its own. */
  get mayBeSentAhead(): boolean {
    return !this.splittable;
  }

  /** Whether queries may be sent ahead to its process, to run after it: it runs in that one process, unsplit. */
  get takesQueriesBehind(): boolean {
    return !this.splitAsked;
  }

  /** A whole-table query that may be split (ranges.ts); known once asked, as it is of each key's next query to send ahead. */
  private get splittable(): boolean {
    return (this.maySplit ??= this.options.rowsPerRange > 0 && mayBeSplit(this.job));
  }

  /** The run has its slot: its job is given (unless it was sent ahead), and its time limit runs. */
  start(slot: ProcessSlot, sentAhead = false): void {
    this.times.startedAt = performance.now();
    this.slot = slot;
    if (!sentAhead) {
      // The pool's answer first: it is the cheaper question, and most often no (small queries come in crowds).
      this.splitAsked = this.host.spare(this) && this.splittable;
      slot.work(this, this.splitAsked ? { ...this.job, split: { rowsPerRange: this.options.rowsPerRange } } : this.job);
    }
    this.clock.start();
  }

  /** A long query: its processes run at a lower CPU priority, a second one taken later too. */
  lowerPriority(): void {
    this.long = true;
    this.each('lowerPriority');
  }

  /** Frozen as a long query in excess: its time does not run until `unpark`. */
  park(): void {
    this.parked = true;
    this.clock.stop();
    this.each('freeze');
  }

  unpark(): void {
    this.parked = false;
    this.lowerPriority();
    this.each('thaw');
    this.clock.start();
    this.split?.startNext();
  }

  /** One of its processes died while running it (out of memory, killed from outside, or for its temporary files). */
  processDied(slot: ProcessSlot): void {
    this.forget(slot);
    this.destroy(new QueryFailed(slot.process.stoppedFor ?? { kind: 'resources' }));
  }

  /** A frame of the job a slot runs for this run. */
  onFrame(slot: ProcessSlot, frame: Frame): void {
    switch (frame.type) {
      case FrameType.plan:
        this.splitOver(slot, JSON.parse(frame.payload.toString()) as RangePlan);
        break;
      case FrameType.data:
        if (this.split) this.split.output(slot, frame.payload);
        else if (!this.spool.append(frame.payload)) this.awaitRoom(slot);
        break;
      case FrameType.inflated:
        this.deflatedBytes += frame.payload.readUInt32BE(0);
        break;
      case FrameType.end: {
        const end = JSON.parse(frame.payload.toString()) as EndPayload;
        if (this.split) return this.split.ended(slot, end);
        this.completed(end.rows, end.deflated);
        this.letGo(slot);
        this.spool.end();
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
    this.clock.stop();
    this.host.withdraw(this);
    const slots = this.split ? this.split.stop() : this.slot ? [this.slot] : [];
    this.slot = undefined;
    for (const slot of slots) this.host.free(slot);
    this.spool.close();
    callback(err);
  }

  /** Lowers the priority of, freezes or thaws each process it holds. */
  private each(act: 'lowerPriority' | 'freeze' | 'thaw'): void {
    if (this.split) for (const slot of this.split.slots()) slot.process[act]();
    else this.slot?.process[act]();
  }

  /** The first process answered with a plan: the rest is a split export's. */
  private splitOver(slot: ProcessSlot, plan: RangePlan): void {
    this.slot = undefined;
    this.times.ranges = rangeCount(plan);
    this.split = new SplitExport(this.splitOwner(), plan, slot);
  }

  /** What its split export may see and do of it. */
  private splitOwner(): SplitOwner {
    return {
      job: this.job,
      spool: this.spool,
      parked: () => this.parked,
      long: () => this.long,
      secondSlot: () => this.host.secondSlot(this),
      othersWaiting: () => this.host.othersWaiting(),
      work: (slot, job) => slot.work(this, job),
      letGo: (slot) => this.host.free(slot),
      completed: (rows, deflated) => this.completed(rows, deflated),
    };
  }

  /** A full spool: the process waits for the client now, and that wait is the query's time. */
  private awaitRoom(slot: ProcessSlot): void {
    slot.process.pauseOutput();
    if (this.roomAwaited) return;
    this.roomAwaited = true;
    this.spool.onRoom(() => {
      this.roomAwaited = false;
      if (this.slot === slot) slot.process.resumeOutput();
    });
  }

  /** Every row is made: the time limit stops; what is left is the client's reading. */
  private completed(rows: number, deflated: Deflated | undefined): void {
    this.rows = rows;
    if (this.job.deflate) this.deflated = deflated;
    this.ended('ok');
    this.clock.stop();
  }

  /** The first end said is the one: a run destroyed after its process finished has already ended. */
  private ended(outcome: QueryOutcome): void {
    if (this.times.outcome !== undefined) return;
    this.times.endedAt = performance.now();
    this.times.outcome = outcome;
  }

  private letGo(slot: ProcessSlot): void {
    this.forget(slot);
    this.host.free(slot);
  }

  private forget(slot: ProcessSlot): void {
    if (this.split) this.split.forget(slot);
    else if (this.slot === slot) {
      this.slot = undefined;
      slot.process.resumeOutput();
    }
  }
}
