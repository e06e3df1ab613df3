import type { FairQueue } from './fair-queue.js';
import type { QueryRun } from './query-run.js';
import { startingMs, type ProcessSlot, type Sent } from './slot.js';

/**
 * Queries sent ahead to one process at most, by default. With several waiting there, a process reads
 * them in one go and runs them one after the other without sleeping, and the server reads their
 * answers in fewer reads and writes them to their clients in a row: fewer processes woken, each
 * costly on a virtual machine. Small queries, alternated on one machine: 8 rather than 1, +15 % a
 * second and 11 % less of the server's CPU per query, the p99 a few ms higher.
 */
export const defaultQueriesAhead = 8;

/**
 * A query sent ahead to a process whose query has worked this long is taken back for an idle process
 * that may start one; before, it most likely starts where it is sooner (a small query takes well
 * under a millisecond), and the idle process waits for it rather than take another's turn.
 */
const takeBackAfterMs = 2;

/** Whether a waiting query may be sent ahead: not one that may be split, which waits for a process of its own. */
const mayBeSentAhead = (run: QueryRun): boolean => run.mayBeSentAhead;

/**
 * Sending ahead: a query that may not start now (every process busy, or as many just started as
 * allowed) is sent to a process whose query has just started, `queriesAhead` at most to each, to run
 * as soon as those before it end: the process reads it without going to sleep, and the server's send
 * wakes nobody. It takes its key's slot as if it ran. Once the first query waiting in a process has
 * waited `startingMs`, all those waiting there are taken back (cancelled in that process, queued again
 * first of their keys'): a query waits sent ahead `startingMs` at most, behind a slow one or many.
 * `queriesAhead` 0 turns it off: queries then wait in the queue for a process of their own.
 */
export class SendAhead {
  /** Queries sent ahead so far. */
  sentCount = 0;
  /** The slots with queries sent ahead, in the order they got their first. */
  private readonly holding = new Set<ProcessSlot>();

  constructor(
    private readonly queriesAhead: number,
    private readonly queue: FairQueue<QueryRun>,
    /** Called once queries taken back wait in the queue again. */
    private readonly requeued: () => void,
  ) {}

  /** Whether any query waits sent ahead. */
  get any(): boolean {
    return this.holding.size > 0;
  }

  /** Sends waiting queries ahead to the slots whose query has just started, `queriesAhead` each. */
  send(slots: Iterable<ProcessSlot>): void {
    if (this.queriesAhead === 0 || this.queue.waiting === 0) return;
    const now = performance.now();
    for (const slot of slots) {
      const startedAt = slot.startedAt;
      if (startedAt === undefined || now - startedAt >= startingMs || !slot.run!.takesQueriesBehind) continue;
      while (slot.ahead.length < this.queriesAhead) {
        const run = this.queue.next(mayBeSentAhead);
        if (!run) break;
        slot.ahead.push({ run, id: slot.process.run(run.job), at: now });
        this.sentCount += 1;
      }
      if (slot.ahead.length > 0) {
        this.holding.add(slot);
        slot.aheadTimer ??= this.watch(slot, startingMs);
      }
      if (this.queue.waiting === 0) return;
    }
  }

  /**
   * The query sent ahead the longest ago, taken back from its process (its key's slot kept) for a
   * process free to run it; or, if its process's query has not worked `takeBackAfterMs` yet, how long
   * until it has; undefined if none waits.
   */
  takeBackFirst(): QueryRun | number | undefined {
    for (const slot of this.holding) {
      const sent = firstLive(slot);
      if (!sent) continue;
      const run = sent.run!;
      const worked = performance.now() - (slot.startedAt ?? 0);
      if (worked < takeBackAfterMs) return takeBackAfterMs - worked;
      takeBack(slot, sent);
      return run;
    }
    return undefined;
  }

  /** Takes `run` back if it waits sent ahead (its client left): true if it did, its key's slot to be given back. */
  withdraw(run: QueryRun): boolean {
    // Every run that ends comes here: plain loops, which allocate nothing.
    for (const slot of this.holding) {
      for (const sent of slot.ahead) {
        if (sent.run !== run) continue;
        takeBack(slot, sent);
        return true;
      }
    }
    return false;
  }

  /** The slot's process is done with its job: the first query sent ahead to it, now its job (or taken back: its cancel's answer to come). */
  next(slot: ProcessSlot): Sent | undefined {
    const first = slot.ahead.shift();
    if (first && slot.ahead.length === 0) this.forget(slot);
    return first;
  }

  /** The slot's process is gone: the queries still sent ahead to it, in the order sent, to wait again. */
  orphans(slot: ProcessSlot): QueryRun[] {
    const runs: QueryRun[] = [];
    for (const { run } of slot.ahead) if (run) runs.push(run);
    slot.ahead.length = 0;
    this.forget(slot);
    return runs;
  }

  private forget(slot: ProcessSlot): void {
    clearTimeout(slot.aheadTimer);
    slot.aheadTimer = undefined;
    this.holding.delete(slot);
  }

  /**
   * Looks in `afterMs` at the queries waiting in `slot`: once the first of them has waited
   * `startingMs` (the query before it is slow, or those before it add up), all are taken back,
   * queued again, and the process is left to its query; until then, it looks again when that one
   * will have. So no query waits sent ahead longer than a query counts as just started.
   */
  private watch(slot: ProcessSlot, afterMs: number): NodeJS.Timeout {
    return setTimeout(() => {
      slot.aheadTimer = undefined;
      const first = firstLive(slot);
      if (!first) return;
      const left = first.at + startingMs - performance.now();
      if (left > 0) slot.aheadTimer = this.watch(slot, left);
      else this.takeBackAll(slot);
    }, afterMs);
  }

  /** Takes back every query still sent ahead to `slot`, queued again first of their keys' in the order sent. */
  private takeBackAll(slot: ProcessSlot): void {
    const taken: QueryRun[] = [];
    for (const sent of slot.ahead) {
      if (!sent.run) continue;
      taken.push(sent.run);
      takeBack(slot, sent);
    }
    this.requeue(taken);
  }

  /** Queues again queries that were sent ahead, first of their keys', in the order they were sent. */
  requeue(runs: QueryRun[]): void {
    for (let i = runs.length - 1; i >= 0; i--) this.queue.requeue(runs[i]!);
    this.requeued();
  }
}

/** The first query sent ahead to `slot` not taken back: the one that has waited longest. */
function firstLive(slot: ProcessSlot): Sent | undefined {
  for (const sent of slot.ahead) if (sent.run) return sent;
  return undefined;
}

/** Cancels a query sent ahead: the process answers with a skipped frame, unless it had started it. */
function takeBack(slot: ProcessSlot, sent: Sent): void {
  sent.run = undefined;
  slot.process.cancel(sent.id);
}
