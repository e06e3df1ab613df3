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

interface KeyState<T> {
  waiting: T[];
  running: number;
}

/**
 * Decides which waiting item runs next, fairly between keys: keys take turns (round-robin), and a
 * key never has more than `keyConcurrency` items running. One key's backlog therefore delays
 * another key by at most one turn. Items wait at most `queueTimeoutMs`.
 */
export class FairQueue<T extends QueueItem> {
  /** Keys with items waiting or running, in turn order: the next turn goes to the first eligible one. */
  private readonly keys = new Map<string, KeyState<T>>();
  private readonly timers = new Map<T, NodeJS.Timeout>();
  private waitingCount = 0;

  constructor(private readonly limits: FairQueueLimits) {}

  get waiting(): number {
    return this.waitingCount;
  }

  /** Queues an item, or throws QueryFailed when its key's queue or the whole queue is full. */
  enqueue(item: T): void {
    const state = this.keys.get(item.key) ?? { waiting: [], running: 0 };
    if (state.waiting.length >= this.limits.keyQueue) {
      throw new QueryFailed({ kind: 'key-busy', running: state.running, waiting: state.waiting.length });
    }
    if (this.waitingCount >= this.limits.queueLimit) throw new QueryFailed({ kind: 'busy' });
    state.waiting.push(item);
    this.keys.set(item.key, state);
    this.wait(item);
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
    this.wait(item);
    const others = [...this.keys].filter(([key]) => key !== item.key);
    this.keys.clear();
    this.keys.set(item.key, state);
    for (const [key, other] of others) this.keys.set(key, other);
  }

  /**
   * Takes the next item to start: the first waiting one of the first key in turn order that is under
   * its concurrency (and, given `may`, that it allows). That key goes to the back of the line.
   * Undefined when none may start.
   */
  next(may?: (item: T) => boolean): T | undefined {
    for (const [key, state] of this.keys) {
      if (state.waiting.length === 0 || state.running >= this.limits.keyConcurrency) continue;
      if (may && !may(state.waiting[0]!)) continue;
      const item = state.waiting.shift()!;
      this.unwait(item);
      state.running += 1;
      this.keys.delete(key);
      this.keys.set(key, state);
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
    this.forgetIfIdle(item.key, state);
  }

  /** Takes a waiting item out (its client left). False if it was not waiting. */
  remove(item: T): boolean {
    const state = this.keys.get(item.key);
    const i = state?.waiting.indexOf(item) ?? -1;
    if (!state || i === -1) return false;
    state.waiting.splice(i, 1);
    this.unwait(item);
    this.forgetIfIdle(item.key, state);
    return true;
  }

  /** Fails every waiting item, for a shutdown. */
  drain(error: QueryFailed): void {
    for (const [, state] of this.keys) {
      for (const item of state.waiting.splice(0)) {
        this.unwait(item);
        item.fail(error);
      }
    }
  }

  private wait(item: T): void {
    this.waitingCount += 1;
    this.timers.set(
      item,
      setTimeout(() => {
        if (this.remove(item)) item.fail(new QueryFailed({ kind: 'queue-timeout', seconds: this.limits.queueTimeoutMs / 1000 }));
      }, this.limits.queueTimeoutMs),
    );
  }

  private unwait(item: T): void {
    clearTimeout(this.timers.get(item));
    this.timers.delete(item);
    this.waitingCount -= 1;
  }

  private forgetIfIdle(key: string, state: KeyState<T>): void {
    if (state.running === 0 && state.waiting.length === 0) this.keys.delete(key);
  }
}
