import { isoTime } from '../iso-time.js';
import type { ApiKey, Scraper } from '../store/types.js';
import type { DownloadRecorder } from './recorder.js';

/** How a download ended: its status, and for an answer, its rows and bytes (before compression). */
export interface DownloadEnd {
  status: number;
  rows?: number | null;
  bytes?: number;
}

/**
 * One API call's download, recorded once, with what the call ended as, from whichever place it ends
 * in: a 304, a refusal, an answer about to send its last bytes, an answer cut short. Later calls to
 * `record` only say how it ended, so each place may record without knowing of the others.
 */
export class PendingDownload {
  /**
   * What the call ended as, last said: what its log line says. A response cut short after its
   * download was recorded (before its last bytes) ends as cut, though recorded as answered.
   */
  status = 200;
  rows: number | null = null;
  bytes = 0;
  private recorded = false;

  constructor(
    private readonly recorder: DownloadRecorder,
    private readonly call: { key: ApiKey; scraper: Scraper },
    /** Its format as recorded: the format's name, `jsonp`, or the twin's (`table.json`, …). */
    readonly format: string,
    /** What was asked: the SQL, a twin's path and parameters, or none for a whole file. */
    private readonly query: string | null,
    /** When the call came (performance.now()): its duration runs from there. */
    private readonly startedAt: number,
  ) {}

  /**
   * The call is no download: a part of a file after its first byte (a download resumed, counted
   * once, by the call that began it). How it ends is still said, for its log line, never recorded.
   */
  notCounted(): void {
    this.recorded = true;
  }

  /**
   * Queues the download (into the spool, when there is one), the first time. An answer is recorded
   * before its last bytes are written, which wait for what this returns (the spool's write): a node
   * killed the moment after loses no download it answered.
   */
  record(end: DownloadEnd): Promise<void> | undefined {
    this.status = end.status;
    this.rows = end.rows ?? null;
    this.bytes = end.bytes ?? 0;
    if (this.recorded) return undefined;
    this.recorded = true;
    return this.recorder.record({
      scraperId: this.call.scraper.id,
      accountId: this.call.key.account.id,
      keyId: this.call.key.id,
      at: isoTime(),
      format: this.format,
      query: this.query,
      status: this.status,
      rows: this.rows,
      bytes: this.bytes,
      durationMs: performance.now() - this.startedAt,
    });
  }
}
