import { endsJob, FrameType, type Frame, type QueryJob } from './protocol.js';
import type { QueryProcess } from './query-process.js';
import type { QueryRun } from './query-run.js';
import { relayBuffers } from './relay-buffers.js';

/**
 * `starting`: its process is not ready yet; `idle`: ready, running nothing; `running`: held by a run
 * (running its job, or kept by a split export between two ranges); `finishing`: ending a job nobody
 * waits for, its output dropped; `gone`: killed or exited, never to be given another job.
 */
/** A query counts as just started for this long (`untilOneMayStart`; send-ahead.ts). */
export const startingMs = 20;

/**
 * A query nobody waits for any more (its client left, or it was taken back too late) is let finish,
 * its output dropped, when its process has worked on it less than this; one working longer, or not
 * done by then, has its process killed. A process killed costs a new one, ~200 ms of CPU to start and
 * its code cold after, against a query that takes a millisecond or less to end.
 */
export const finishGraceMs = 100;

export type SlotState = 'starting' | 'idle' | 'running' | 'finishing' | 'gone';

/** A query sent ahead to a process (send-ahead.ts), with its number there; `run` undefined: taken back, its process's answer to the cancel still to come. */
export interface Sent {
  run: QueryRun | undefined;
  id: number;
  /** When it was sent (performance.now()). */
  at: number;
}

/**
 * One query process as the pool sees it: its state, the run it works for, and the queries sent
 * ahead to it. Every frame of the process comes here first: a job's last frame (end, error or
 * skipped) closes it, the running run gets the rest, and a finishing job's are dropped.
 */
export class ProcessSlot {
  state: SlotState = 'starting';
  /** The run it works for while `running`; while `finishing`, the one that left it (its key's slot is held until the job ends). */
  run: QueryRun | undefined;
  /** The queries sent ahead to its process, in the order sent (send-ahead.ts). */
  readonly ahead: Sent[] = [];
  /** The next look at how long those have waited (send-ahead.ts). */
  aheadTimer: NodeJS.Timeout | undefined;
  /** A job was given and its last frame has not come yet. */
  private jobOpen = false;
  private finishTimer: NodeJS.Timeout | undefined;

  /** `finished`: a job nobody waited for has ended, or a run gave the slot back with its job over. */
  constructor(
    readonly process: QueryProcess,
    private readonly finished: (slot: ProcessSlot) => void,
  ) {
    process.onFrame = (frame) => this.onFrame(frame);
  }

  /** Whether its process still works on a job (its last frame has not come). */
  get working(): boolean {
    return this.jobOpen;
  }

  /** When the query it runs for a run started (performance.now()); undefined when it runs none. */
  get startedAt(): number | undefined {
    return this.state === 'running' ? this.run!.times.startedAt : undefined;
  }

  /** Gives `job` to the process for `run`, whose frames it gets from now on. */
  work(run: QueryRun, job: QueryJob): void {
    this.hold(run);
    this.jobOpen = true;
    this.process.run(job);
  }

  /** The job sent ahead for `run` is the process's current one now: `run` gets its frames. */
  begin(run: QueryRun): void {
    this.hold(run);
    this.jobOpen = true;
  }

  /** Held by `run`, which may give it a job later (a split export between two ranges). */
  hold(run: QueryRun): void {
    this.state = 'running';
    this.run = run;
  }

  idle(): void {
    this.state = 'idle';
    this.run = undefined;
  }

  /** Lets the process finish the job of a run that started it at `startedAt` (see `finish`), unless it is too late: false then. */
  mayFinish(startedAt: number): boolean {
    const left = finishGraceMs - (performance.now() - startedAt);
    if (left > 0) this.finish(left);
    return left > 0;
  }

  /**
   * Lets the process end the job it works on, which nobody waits for: its output is dropped until
   * the job's last frame, then `finished` is called. Not ended within `withinMs`, it is killed.
   */
  finish(withinMs = finishGraceMs): void {
    this.state = 'finishing';
    this.jobOpen = true;
    // A process whose output was paused (its client was slow) would never end its query.
    this.process.resumeOutput();
    this.finishTimer = setTimeout(() => void this.process.kill(), withinMs);
  }

  /** The process exited: nothing more comes from it. */
  gone(): void {
    clearTimeout(this.finishTimer);
    clearTimeout(this.aheadTimer);
    this.state = 'gone';
    this.run = undefined;
    this.jobOpen = false;
  }

  private onFrame(frame: Frame): void {
    // Frames still on the way from a process being killed: nobody is to act on them.
    if (this.process.gone) return;
    const last = endsJob(frame.type);
    if (last) this.jobOpen = false;
    if (this.state === 'running') {
      this.run!.onFrame(this, frame);
    } else if (this.state === 'finishing') {
      if (frame.type === FrameType.data) relayBuffers.release(frame.payload);
      if (!last) return;
      clearTimeout(this.finishTimer);
      this.finished(this);
    }
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
export function untilOneMayStart(slots: Iterable<ProcessSlot>, startingAtOnce: number): number {
  const now = performance.now();
  let starting = 0;
  let first = now;
  for (const slot of slots) {
    const at = slot.startedAt;
    if (at === undefined || now - at >= startingMs) continue;
    starting += 1;
    first = Math.min(first, at);
  }
  return starting < startingAtOnce ? 0 : first + startingMs - now;
}
