import type { QueryProcess } from './query-process.js';

/** A process that dies this soon after starting is failing to start; wait before starting another. */
const quickDeathMs = 1000;
const respawnDelayMs = 250;
/** Start-up gives up after this long, or after this many processes died before they were ready. */
const startDeadlineMs = 30_000;
const startFailuresAllowed = 3;

/** Query processes could not be started: the message says why (what the last one wrote to stderr). */
export class PoolStartError extends Error {}

/**
 * How a pool's processes start and are replaced: a process that could not start, or died as it
 * started, is replaced after a pause, not at once; a few such failures in a row, and the pool's
 * `ready()` gives up with the last one's reason rather than wait for ever.
 */
export class ProcessStarts {
  private failures = 0;
  private lastError = '';

  constructor(
    /** Starts one process. */
    private readonly start: () => void,
    private readonly closing: () => boolean,
  ) {}

  /** A process is ready: failures in a row start over. */
  started(): void {
    this.failures = 0;
  }

  /** A process could not start: it is tried again after a pause when `retry`. */
  failed(err: Error, retry = false): void {
    this.failures += 1;
    this.lastError = err.message;
    if (retry) this.later();
  }

  /** Starts a process in place of one gone: after a pause if it died of its own just after it started. */
  replace(process: QueryProcess): void {
    if (!process.stopped && Date.now() - process.startedAt < quickDeathMs) this.later();
    else this.start();
  }

  /** Resolves once `readyCount()` reaches `size`; rejects with PoolStartError when processes cannot start. */
  async ready(readyCount: () => number, size: number): Promise<void> {
    const deadline = Date.now() + startDeadlineMs;
    while (readyCount() < size) {
      if (this.closing()) throw new PoolStartError('the query pool was closed while starting');
      if (this.failures >= startFailuresAllowed || Date.now() > deadline) {
        throw new PoolStartError(`query processes could not start: ${this.lastError || 'not ready in time'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private later(): void {
    setTimeout(() => this.closing() || this.start(), respawnDelayMs);
  }
}
