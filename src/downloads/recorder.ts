import { errors } from '../errors.js';
import type { DownloadRecord, DownloadStore } from '../store/types.js';
import type { DownloadSpool, SpoolEntry } from './spool.js';

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
  /** Where each download is kept from the moment it is queued, so that a node killed outright loses none (spool.ts). */
  spool?: DownloadSpool;
}

interface Pending {
  download: DownloadRecord;
  /** Where it is in the spool; none without a spool, or once the spool was given up. */
  entry: SpoolEntry | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records downloads off the request path: `record` only queues one in memory, and the queue is
 * written in batches, one transaction each, so a request never waits for the disk and a thousand
 * downloads cost one commit instead of a thousand.
 *
 * None is lost while the process lives: a batch that cannot be written stays queued and is tried
 * again with backoff, and `close` writes all that wait. With a spool, none is lost either when the
 * process is killed outright: each is in the spool file before its response ends, and a batch is
 * recorded with how far the spool is recorded, for the replay (spool.ts). Without one, a process
 * killed outright loses what waited, the last batch window. The queue is bounded: while it is full,
 * `assertAccepting` refuses.
 */
export class DownloadRecorder {
  private pending: Pending[] = [];
  private pendingQueryChars = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** While writes fail: the last failure, and the wait before the next try. */
  private lastError: unknown;
  private retryMs = 0;
  private closing = false;
  /** Downloads written since the service started. */
  private written = 0;

  constructor(
    private readonly store: Pick<DownloadStore, 'recordDownloads' | 'forgetSpool'>,
    private readonly options: RecorderOptions,
  ) {}

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
   * `assertAccepting` is recorded even if others filled the queue meanwhile (by at most the calls in
   * flight). Returns, with a spool, what its answer must wait for: its line in the spool, at the end
   * of this turn of the event loop.
   */
  record(download: DownloadRecord): Promise<void> | undefined {
    const entry = this.options.spool?.append(download);
    this.pending.push({ download, entry });
    this.pendingQueryChars += download.query?.length ?? 0;
    if (!this.writing && !this.closing) {
      // Otherwise the running write takes it, or close does.
      if (this.pending.length >= batchSize && this.retryMs === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      this.schedule();
    }
    return entry?.written;
  }

  /** Writes every queued download now, rather than within the batch window. Throws if a write fails: they stay queued. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // A write already under way takes only those queued when it began: the rest take another.
    do await this.drain();
    while (this.pending.length > 0 && !this.lastError);
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
    const { spool } = this.options;
    if (spool && this.pending.length === 0) await this.forget(spool.removeAll());
    spool?.leave();
    // Kept in the log, whence they could be put back, rather than dropped without a trace; those in
    // the spool are also replayed by the next node to start.
    for (const { download } of this.pending) this.options.log.error({ download }, 'download not recorded at shutdown');
  }

  /** Spools fully recorded and removed: their progress is no longer needed. Kept if this fails: it is only a row. */
  private async forget(spools: readonly string[]): Promise<void> {
    for (const spool of spools) await this.store.forgetSpool(spool).catch(() => {});
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
   * The one writer: writes the downloads queued when it starts, a batch at a time, letting other
   * work run between batches, until they are written or a write fails. Those queued meanwhile wait
   * for their own batch window: written as long as any were waiting, a busy node committed every turn
   * of the event loop (~60 commits a second, not 10, each writing its pages anew). A second call
   * while it runs gets the same promise.
   */
  private drain(): Promise<void> {
    this.writing ??= (async () => {
      let left = this.pending.length;
      while (left > 0) {
        const written = await this.writeBatch();
        if (written === 0) break;
        left -= written;
        if (left > 0) await new Promise(setImmediate);
      }
    })().finally(() => {
      this.writing = undefined;
      this.schedule();
    });
    return this.writing;
  }

  /**
   * Writes the oldest queued downloads, up to a batch of one spool file (each batch records how far
   * its file is recorded), and returns how many; on failure, none: they stay first in the queue.
   */
  private async writeBatch(): Promise<number> {
    const file = this.pending[0]?.entry?.file;
    let size = 0;
    while (size < batchSize && size < this.pending.length && this.pending[size]!.entry?.file === file) size++;
    const batch = this.pending.slice(0, size);
    const last = batch[batch.length - 1]?.entry;
    try {
      await this.store.recordDownloads(
        batch.map((p) => p.download),
        last && this.options.spool?.progress(last),
      );
    } catch (err) {
      if (!this.lastError)
        this.options.log.error({ err, pending: this.pending.length }, 'downloads cannot be recorded; they are kept and tried again');
      this.lastError = err;
      this.retryMs = Math.min(Math.max(2 * this.retryMs, firstRetryMs), maxRetryMs);
      return 0;
    }
    this.pending.splice(0, batch.length);
    this.written += batch.length;
    this.pendingQueryChars -= batch.reduce((n, p) => n + (p.download.query?.length ?? 0), 0);
    if (last && this.options.spool) await this.forget(this.options.spool.recorded(last));
    if (this.lastError) this.options.log.info({ pending: this.pending.length }, 'downloads are recorded again');
    this.lastError = undefined;
    this.retryMs = 0;
    return batch.length;
  }
}
