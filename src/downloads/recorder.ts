import { errors } from '../errors.js';
import type { DownloadRecord, Store } from '../store/types.js';

/** A download waits at most this long before it is written (with others of the same moment)… */
const batchWindowMs = 100;
/** …or less, once this many are waiting: they are written at once, in one transaction. */
const batchSize = 500;
/** A failed write (a full disk, say) is tried again after this, doubling up to `maxRetryMs`. */
const firstRetryMs = 100;
const maxRetryMs = 2000;
/**
 * Characters of SQL text held by waiting downloads, beyond which calls are refused as when the queue
 * is full: a query may be 100,000 characters, so a full queue of them would hold gigabytes (~40 MB here).
 */
const maxPendingQueryChars = 20_000_000;
/** At shutdown, writes that keep failing are tried for this long; what is left then goes to the log. */
const closeRetryMs = 5000;

export interface RecorderLog {
  error(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface RecorderOptions {
  /**
   * Downloads waiting to be written; once this many wait, the data API refuses calls
   * (`assertAccepting`) rather than serve downloads it could not record.
   */
  maxPending: number;
  log: RecorderLog;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records downloads off the request path: `record` only queues one in memory, and the queue is
 * written in batches, one transaction each, so a request never waits for the disk and a thousand
 * downloads cost one commit instead of a thousand.
 *
 * None is lost while the process lives: a batch that cannot be written stays queued and is tried
 * again with backoff, and `close` writes all that wait. A process killed outright loses at most what
 * waited, the last batch window. The queue is bounded: while it is full, `assertAccepting` refuses.
 */
export class DownloadRecorder {
  private pending: DownloadRecord[] = [];
  private pendingQueryChars = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** While writes fail: the last failure, and the wait before the next try. */
  private lastError: unknown;
  private retryMs = 0;
  private closing = false;
  /** Downloads written since the service started. */
  private written = 0;

  constructor(private readonly store: Pick<Store, 'recordDownloads'>, private readonly options: RecorderOptions) {}

  /** Downloads written so far, and waiting to be: for the metrics. */
  counts(): { written: number; pending: number } {
    return { written: this.written, pending: this.pending.length };
  }

  /** Throws the 503 to answer when the queue is full. Called before serving anything. */
  assertAccepting(): void {
    if (this.pending.length >= this.options.maxPending || this.pendingQueryChars >= maxPendingQueryChars) {
      throw errors.downloadsBacklog();
    }
  }

  /**
   * Queues a download; it is written within the batch window. Never refused: a call that passed
   * `assertAccepting` is recorded even if others filled the queue meanwhile (by at most the calls in flight).
   */
  record(download: DownloadRecord): void {
    this.pending.push(download);
    this.pendingQueryChars += download.query?.length ?? 0;
    if (this.writing || this.closing) return; // the running write takes it, or close does
    if (this.pending.length >= batchSize && this.retryMs === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.schedule();
  }

  /** Writes every queued download now, rather than within the batch window. Throws if a write fails: they stay queued. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.drain();
    if (this.lastError) throw this.lastError;
  }

  /** Writes every queued download, trying for a while if writes fail; then what could not be written is logged. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    const deadline = Date.now() + closeRetryMs;
    for (;;) {
      await this.drain();
      if (this.pending.length === 0 || Date.now() + this.retryMs > deadline) break;
      await sleep(this.retryMs);
    }
    // Kept in the log, whence they could be put back, rather than dropped without a trace.
    for (const download of this.pending) this.options.log.error({ download }, 'download not recorded at shutdown');
  }

  /** The next write: now for a full batch, after the batch window, or after the backoff while writes fail. */
  private schedule(): void {
    if (this.closing || this.timer || this.pending.length === 0) return;
    const delay = this.retryMs || (this.pending.length >= batchSize ? 0 : batchWindowMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, delay);
  }

  /**
   * The one writer: writes queued downloads a batch at a time, letting other work run between
   * batches, until none is left or a write fails. A second call while it runs gets the same promise.
   */
  private drain(): Promise<void> {
    this.writing ??= (async () => {
      while (this.pending.length > 0 && await this.writeBatch()) await new Promise(setImmediate);
    })().finally(() => {
      this.writing = undefined;
      this.schedule();
    });
    return this.writing;
  }

  /** Writes the oldest queued downloads, up to a batch; on failure they stay first in the queue. */
  private async writeBatch(): Promise<boolean> {
    const batch = this.pending.slice(0, batchSize);
    try {
      await this.store.recordDownloads(batch);
    } catch (err) {
      if (!this.lastError) this.options.log.error({ err, pending: this.pending.length }, 'downloads cannot be recorded; they are kept and tried again');
      this.lastError = err;
      this.retryMs = Math.min(Math.max(2 * this.retryMs, firstRetryMs), maxRetryMs);
      return false;
    }
    this.pending.splice(0, batch.length);
    this.written += batch.length;
    this.pendingQueryChars -= batch.reduce((n, d) => n + (d.query?.length ?? 0), 0);
    if (this.lastError) this.options.log.info({ pending: this.pending.length }, 'downloads are recorded again');
    this.lastError = undefined;
    this.retryMs = 0;
    return true;
  }
}
