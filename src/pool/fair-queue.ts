import { QueryFailed } from '../errors.js';

export interface FairQueueLimits {
  /** Items of one key started and not yet finished, at most. */
  keyConcurrency: number;
  /** Items of one key waiting, at most; more is refused (`key-busy`). */
  keyQueue: number;
  /** Items waiting, all keys together, at most; more is refused (`busy`). */
  queueLimit: number;
  /** An item that waited this long is taken out and failed (`queue-timeout`). */
  queueTimeoutMs: number;
}

export interface QueueItem {
  /** Who the item is for: items of one key share its concurrency and queue. */
  readonly key: string;
  /** Took too long to be started, or the queue closed: the item will never start. */
  fail(error: QueryFailed): void;
}

/** A key with items waiting or running, linked in turn order. */
interface KeyState<T> {
  readonly key: string;
  waiting: T[];
  /** When each waiting item's wait ends (performance.now()), in the order of `waiting`. */
  deadlines: number[];
  running: number;
  before: KeyState<T> | undefined;
  after: KeyState<T> | undefined;
}

/**
 * Decides which waiting item runs next, fairly between keys: keys take turns (round-robin), and a
 * key never has more than `keyConcurrency` items running. One key's backlog therefore delays
 * another key by at most one turn. Items wait at most `queueTimeoutMs`.
 *
 * Every query passes through here, so nothing here allocates per item: keys' turn order is a list
 * linked through their states (a key moved to the back is relinked, where moving it in a Map's order
 * deleted and added an entry each time, and giving one back its turn rebuilt the Map), and one timer
 * watches every wait, not one per item.
 */
export class FairQueue<T extends QueueItem> {
  private readonly keys = new Map<string, KeyState<T>>();
  /** Turn order: the next turn goes to the first eligible key from `first` on. */
  private first: KeyState<T> | undefined;
  private last: KeyState<T> | undefined;
  private waitingCount = 0;
  /** Set while items wait: fires at the earliest end of a wait (see `expire`). */
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limits: FairQueueLimits) {}

  get waiting(): number {
    return this.waitingCount;
  }

  /** Queues an item, or throws QueryFailed when its key's queue or the whole queue is full. */
  enqueue(item: T): void {
    let state = this.keys.get(item.key);
    if (state && state.waiting.length >= this.limits.keyQueue) {
      throw new QueryFailed({ kind: 'key-busy', running: state.running, waiting: state.waiting.length });
    }
    if (this.waitingCount >= this.limits.queueLimit) throw new QueryFailed({ kind: 'busy' });
    if (!state) {
      state = { key: item.key, waiting: [], deadlines: [], running: 0, before: undefined, after: undefined };
      this.keys.set(item.key, state);
      this.link(state);
    }
    state.waiting.push(item);
    state.deadlines.push(this.wait());
  }

  /**
   * A started item given back before it ran (taken back from a process it was sent ahead to): it
   * waits again, first of its key's and past the queue's limits (it was let in once), for as long as
   * any item may wait; and its key has the first turn again, the one it had not used.
   */
  requeue(item: T): void {
    const state = this.keys.get(item.key)!;
    state.running -= 1;
    state.waiting.unshift(item);
    state.deadlines.unshift(this.wait());
    this.unlink(state);
    this.link(state, true);
  }

  /**
   * Takes the next item to start: the first waiting one of the first key in turn order that is under
   * its concurrency (and, given `may`, that it allows). That key goes to the back of the line.
   * Undefined when none may start.
   */
  next(may?: (item: T) => boolean): T | undefined {
    for (let state = this.first; state; state = state.after) {
      if (state.waiting.length === 0 || state.running >= this.limits.keyConcurrency) continue;
      if (may && !may(state.waiting[0]!)) continue;
      const item = state.waiting.shift()!;
      state.deadlines.shift();
      this.waited(1);
      state.running += 1;
      this.unlink(state);
      this.link(state);
      return item;
    }
    return undefined;
  }

  /** Whether a started item's key is under its concurrency: one more of its slots is free. */
  hasSlot(item: T): boolean {
    const state = this.keys.get(item.key);
    return state !== undefined && state.running < this.limits.keyConcurrency;
  }

  /** A started item takes one more of its key's slots (a second process); `finished` gives each back. */
  takeSlot(item: T): void {
    this.keys.get(item.key)!.running += 1;
  }

  /** A started item is done with a slot: its key may start another. */
  finished(item: T): void {
    const state = this.keys.get(item.key);
    if (!state) return;
    state.running -= 1;
    this.forgetIfIdle(state);
  }

  /** Takes a waiting item out (its client left). False if it was not waiting. */
  remove(item: T): boolean {
    const state = this.keys.get(item.key);
    const i = state?.waiting.indexOf(item) ?? -1;
    if (!state || i === -1) return false;
    this.takeOut(state, i);
    this.forgetIfIdle(state);
    return true;
  }

  /** Fails every waiting item, for a shutdown. */
  drain(error: QueryFailed): void {
    for (let state = this.first; state; state = state.after) {
      const items = state.waiting.splice(0);
      state.deadlines.length = 0;
      this.waited(items.length);
      for (const item of items) item.fail(error);
    }
  }

  /** One more item waits: returns when its wait ends, and has the timer watch it if none does. */
  private wait(): number {
    this.waitingCount += 1;
    const deadline = performance.now() + this.limits.queueTimeoutMs;
    // Every wait is as long, so one that starts now ends after any the timer already watches.
    this.timer ??= setTimeout(() => this.expire(), this.limits.queueTimeoutMs);
    return deadline;
  }

  /**
   * Takes out and fails every item whose wait is over, then watches the earliest wait left. It fires
   * once per wait at most, and finds nothing to do when the item it was set for has started.
   */
  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    let earliest = Infinity;
    const expired: T[] = [];
    for (let state = this.first; state;) {
      const after = state.after;
      for (let i = state.waiting.length - 1; i >= 0; i--) {
        const deadline = state.deadlines[i]!;
        if (deadline > now) earliest = Math.min(earliest, deadline);
        else expired.push(this.takeOut(state, i));
      }
      this.forgetIfIdle(state);
      state = after;
    }
    if (earliest !== Infinity) this.timer = setTimeout(() => this.expire(), Math.ceil(earliest - now));
    for (const item of expired) item.fail(new QueryFailed({ kind: 'queue-timeout', seconds: this.limits.queueTimeoutMs / 1000 }));
  }

  private takeOut(state: KeyState<T>, i: number): T {
    const [item] = state.waiting.splice(i, 1);
    state.deadlines.splice(i, 1);
    this.waited(1);
    return item!;
  }

  /** Items wait no more: with none left waiting, the timer goes too (it would hold the process). */
  private waited(count: number): void {
    this.waitingCount -= count;
    if (this.waitingCount > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Puts a key at the back of the turn order, or at the front. */
  private link(state: KeyState<T>, front = false): void {
    if (front) {
      state.after = this.first;
      if (this.first) this.first.before = state;
      else this.last = state;
      this.first = state;
    } else {
      state.before = this.last;
      if (this.last) this.last.after = state;
      else this.first = state;
      this.last = state;
    }
  }

  private unlink(state: KeyState<T>): void {
    if (state.before) state.before.after = state.after;
    else this.first = state.after;
    if (state.after) state.after.before = state.before;
    else this.last = state.before;
    state.before = undefined;
    state.after = undefined;
  }

  private forgetIfIdle(state: KeyState<T>): void {
    if (state.running > 0 || state.waiting.length > 0) return;
    this.keys.delete(state.key);
    this.unlink(state);
  }
}
