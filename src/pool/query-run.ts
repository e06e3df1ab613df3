import { Readable } from 'node:stream';
import { QueryFailed, type QueryFailure } from '../errors.js';
import type { QueueItem } from './fair-queue.js';
import { FrameType, type EndPayload, type ErrorPayload, type Frame, type QueryJob } from './protocol.js';
import type { QueryProcess } from './query-process.js';
import { Spool, type SpoolOptions } from './spool.js';

/** What a run needs from its pool. */
export interface RunHost {
  /** The run is done with its process, which can take another job. */
  release(run: QueryRun, process: QueryProcess): void;
  /** The run gave up while its process still worked on it: only a kill stops that. */
  kill(run: QueryRun, process: QueryProcess): void;
  /** The run waits in the queue no more. */
  unqueue(run: QueryRun): void;
  /** The run has worked long enough to be a long query. */
  promote(run: QueryRun): void;
}

export interface RunOptions {
  timeoutMs: number;
  /** A query still working after this long is a long one. */
  longAfterMs: number;
  spool: SpoolOptions;
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
 * client reads never holds the process. The time limit counts every moment the query holds its
 * process (a full spool too), except while it is parked as a long query in excess.
 */
export class QueryRun extends Readable implements QueueItem {
  /** Rows sent, once the query has completed. */
  rows: number | null = null;
  /** When it was queued, got a process and let it go (performance.now()), and how it ended: for the metrics. */
  readonly times: { queuedAt: number; startedAt?: number; endedAt?: number; outcome?: string } = { queuedAt: performance.now() };
  private process: QueryProcess | null = null;
  private readonly spool: Spool;
  private remainingMs: number;
  private clock: NodeJS.Timeout | undefined;
  private clockStartedAt = 0;
  private longTimer: NodeJS.Timeout | undefined;
  private reading = false;

  constructor(
    private readonly host: RunHost,
    private readonly job: QueryJob,
    readonly key: string,
    private readonly options: RunOptions,
  ) {
    super();
    this.remainingMs = options.timeoutMs;
    this.spool = new Spool(options.spool);
  }

  fail(error: QueryFailed): void {
    this.destroy(error);
  }

  start(process: QueryProcess): void {
    this.times.startedAt = performance.now();
    this.process = process;
    process.onFrame = (frame) => this.onFrame(frame);
    process.run(this.job);
    this.startClock();
    this.longTimer = setTimeout(() => this.host.promote(this), this.options.longAfterMs);
  }

  /** Frozen as a long query in excess: its time does not run. */
  park(): void {
    this.stopClock();
    this.process?.freeze();
  }

  unpark(): void {
    this.process?.lowerPriority();
    this.process?.thaw();
    this.startClock();
  }

  get runningProcess(): QueryProcess | null {
    return this.process;
  }

  /** The process died while running this query (out of memory, or killed from outside). */
  processDied(): void {
    this.process = null;
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
    this.stopTimers();
    this.host.unqueue(this);
    const process = this.process;
    this.process = null;
    if (process) {
      process.onFrame = () => {};
      this.host.kill(this, process);
    }
    this.spool.close();
    callback(err);
  }

  private onFrame(frame: Frame): void {
    // Frames still in the pipe of a process this run gave up on (it is being killed).
    if (!this.process) return;
    switch (frame.type) {
      case FrameType.data:
        if (!this.spool.append(frame.payload)) {
          // Full: the process waits for the client now, and that wait is the query's time.
          this.process?.pauseOutput();
          this.spool.onRoom(() => this.process?.resumeOutput());
        }
        break;
      case FrameType.end:
        this.rows = (JSON.parse(frame.payload.toString()) as EndPayload).rows;
        this.ended('ok');
        this.done();
        this.spool.end();
        break;
      case FrameType.error: {
        const failure = failureFrom(JSON.parse(frame.payload.toString()) as ErrorPayload);
        this.ended(failure.kind);
        this.done();
        this.destroy(new QueryFailed(failure));
        break;
      }
    }
  }

  /** The first end said is the one: a run destroyed after its process finished has already ended. */
  private ended(outcome: string): void {
    if (this.times.outcome !== undefined) return;
    this.times.endedAt = performance.now();
    this.times.outcome = outcome;
  }

  /** The process is done with this query and can take another. */
  private done(): void {
    this.stopTimers();
    const process = this.process!;
    this.process = null;
    process.onFrame = () => {};
    process.resumeOutput();
    this.host.release(this, process);
  }

  private stopTimers(): void {
    this.stopClock();
    clearTimeout(this.longTimer);
  }

  private startClock(): void {
    if (this.clock) return;
    this.clockStartedAt = Date.now();
    this.clock = setTimeout(
      () => this.destroy(new QueryFailed({ kind: 'timeout', seconds: this.options.timeoutMs / 1000 })),
      this.remainingMs,
    );
  }

  private stopClock(): void {
    if (!this.clock) return;
    clearTimeout(this.clock);
    this.clock = undefined;
    this.remainingMs -= Date.now() - this.clockStartedAt;
  }
}
