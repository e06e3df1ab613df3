import type { CompressingSpool } from './compressing-spool.js';
import { crc32Combine } from './crc32-combine.js';
import type { Deflated, EndPayload, QueryJob, RangePlan } from './protocol.js';
import { RangeOrder } from './range-order.js';
import { rangeCount, rangeOf } from './ranges.js';
import type { ProcessSlot } from './slot.js';
import type { Spool } from './spool.js';

/**
 * Output of a range not yet due (a range ahead's, or the rest of one while the spool is full) kept
 * in memory, at most, a range; beyond, its process waits. A range is about a MB (`rowsPerRange`),
 * so this binds only for very wide rows, or while the spool is full. With `rangesAhead`, an export
 * holds 16 MB at most.
 */
const rangeHoldBytes = 4 * 1024 * 1024;
/**
 * Ranges the processes may run beyond the one being sent. With one, a process that ended the range
 * ahead waited for the other to end the current one: on a busy machine the two took turns as much
 * as they ran together. With three, alternating runs: gzip and br exports 5-20 % faster,
 * uncompressed ones up to 20 %, most when the machine is busy; the export still holds two processes
 * at most.
 */
const rangesAhead = 3;

/** What a split export needs from the run it is the work of (query-run.ts). */
export interface SplitOwner {
  readonly job: QueryJob;
  readonly spool: Spool | CompressingSpool;
  /** Parked as a long query in excess: no range starts. */
  parked(): boolean;
  /** A long query: a second process runs at a lower priority too. */
  long(): boolean;
  /** A second slot, if the pool can spare one now. */
  secondSlot(): ProcessSlot | undefined;
  /** Whether queries wait for a process: the second one goes back for them. */
  othersWaiting(): boolean;
  /** Gives a slot a job of the export's, its frames the export's from now on. */
  work(slot: ProcessSlot, job: QueryJob): void;
  /** The export is done with a slot. */
  letGo(slot: ProcessSlot): void;
  /** Every range has ended, with these rows and, for a deflating job, what was deflated over all of them. */
  completed(rows: number, deflated: Deflated | undefined): void;
}

/**
 * A whole-table export split over two processes (ranges.ts): its first process answered with a plan
 * of rowid ranges, and while it runs one range a second process runs another, taken only while one
 * is idle, no query waits and its key has a free slot (it counts as one of the key's running
 * queries); it goes back to the pool at the end of a range as soon as any query waits, so another
 * key waits for it one range at most (about a MB of output). Ranges go to the run's one spool strictly in order; output not yet due waits in memory
 * (RangeOrder). The run holds both processes' slots, limits and fate: a failure, timeout or cancel
 * in either ends both.
 */
export class SplitExport {
  /** Its slots, each with the range it runs. */
  private readonly workers = new Map<ProcessSlot, number>();
  private readonly order: RangeOrder;
  /** Slots told to wait: for room in the spool, or until output their range holds goes out. */
  private readonly paused = new Set<ProcessSlot>();
  private roomAwaited = false;
  /** The export's last slot, kept while no range may start (its output waits for the spool): it runs the next. */
  private kept: ProcessSlot | undefined;
  private rows = 0;
  /** What each range deflated, as their ends come, in any order. */
  private readonly deflated = new Map<number, Deflated>();

  constructor(
    private readonly run: SplitOwner,
    private readonly plan: RangePlan,
    first: ProcessSlot,
  ) {
    this.order = new RangeOrder(rangeCount(plan), rangeHoldBytes, rangesAhead);
    this.workers.set(first, this.order.take());
    this.startNext();
  }

  get ranges(): number {
    return this.order.count;
  }

  /** The slots running its ranges. */
  slots(): IterableIterator<ProcessSlot> {
    return this.workers.keys();
  }

  /** Output of a slot: to the spool if it is due, else held until it is. */
  output(slot: ProcessSlot, data: Buffer): void {
    const range = this.workers.get(slot)!;
    if (this.order.holds(range)) {
      if (!this.order.hold(range, data)) this.holdBack(slot);
    } else if (!this.run.spool.append(data)) {
      // Full: the process waits for the client now, and that wait is the query's time.
      this.holdBack(slot);
    }
  }

  /** A slot ended its range. */
  ended(slot: ProcessSlot, end: EndPayload): void {
    const range = this.workers.get(slot)!;
    this.rows += end.rows;
    if (end.deflated) this.deflated.set(range, end.deflated);
    const order = this.order;
    order.end(range);
    if (order.allStarted && this.workers.size === 1) {
      // Every range has ended: the query is done, and what is held goes out as the spool takes it.
      this.run.completed(this.rows, this.allDeflated());
      this.letGo(slot);
    } else if (order.startable && !(this.workers.size > 1 && this.run.othersWaiting())) {
      this.runRange(slot, order.take());
    } else if (this.workers.size > 1) {
      // A second process goes back to the pool: for anyone waiting, or until a range may start.
      this.letGo(slot);
    } else {
      this.forget(slot);
      this.kept = slot;
    }
    this.flush();
    this.startNext();
  }

  /** The export stops: the slots it holds, to be let go. */
  stop(): ProcessSlot[] {
    const slots = [...this.workers.keys()];
    if (this.kept) slots.push(this.kept);
    this.workers.clear();
    this.paused.clear();
    this.kept = undefined;
    return slots;
  }

  /** A slot the export holds no more (its process died, or it failed). */
  forget(slot: ProcessSlot): void {
    this.workers.delete(slot);
    this.paused.delete(slot);
    if (this.kept === slot) this.kept = undefined;
    slot.process.resumeOutput();
  }

  /** Starts the ranges that may start: in the export's kept slot, then in one the pool can spare. */
  startNext(): void {
    // A parked run starts nothing: it goes on where it was once unparked.
    if (this.run.parked()) return;
    if (this.kept && this.order.startable) {
      const slot = this.kept;
      this.kept = undefined;
      this.runRange(slot, this.order.take());
    }
    // A second slot while a range may start and the pool can spare one: never a third.
    while (this.order.startable && this.workers.size < 2) {
      const second = this.run.secondSlot();
      if (!second) return;
      if (this.run.long()) second.process.lowerPriority();
      this.runRange(second, this.order.take());
    }
  }

  private runRange(slot: ProcessSlot, range: number): void {
    this.workers.set(slot, range);
    this.run.work(slot, { ...this.run.job, range: rangeOf(this.plan, range) });
  }

  private letGo(slot: ProcessSlot): void {
    this.forget(slot);
    this.run.letGo(slot);
  }

  private holdBack(slot: ProcessSlot): void {
    slot.process.pauseOutput();
    this.paused.add(slot);
    this.awaitRoom();
  }

  /** Once a full spool has room again: held output goes to it, and what waited goes on. */
  private awaitRoom(): void {
    if (this.roomAwaited || !this.run.spool.full) return;
    this.roomAwaited = true;
    this.run.spool.onRoom(() => {
      this.roomAwaited = false;
      this.flush();
      this.startNext();
    });
  }

  /**
   * Moves held output to the spool while it has room (never past its caps), ends the spool once the
   * last output is in it, and lets paused slots whose wait is over go on.
   */
  private flush(): void {
    const { order } = this;
    const spool = this.run.spool;
    for (let data = spool.full ? undefined : order.due(); data; data = spool.full ? undefined : order.due()) spool.append(data);
    if (order.done) spool.end();
    for (const slot of this.paused) {
      const range = this.workers.get(slot)!;
      if (order.holds(range) ? order.mayGoOn(range) : !spool.full) {
        this.paused.delete(slot);
        slot.process.resumeOutput();
      }
    }
    this.awaitRoom();
  }

  /**
   * What the ranges deflated, as one: their CRCs combined in order. Undefined if one's end did not
   * say (a bug of ours): the gzip body is then cut short rather than given a trailer made up.
   */
  private allDeflated(): Deflated | undefined {
    if (!this.run.job.deflate) return undefined;
    let all: Deflated = { crc: 0, bytes: 0 };
    for (let range = 0; range < this.order.count; range++) {
      const part = this.deflated.get(range);
      if (!part) return undefined;
      all = { crc: crc32Combine(all.crc, part.crc, part.bytes), bytes: all.bytes + part.bytes };
    }
    return all;
  }
}
