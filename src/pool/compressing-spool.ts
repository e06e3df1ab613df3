import type { Transform } from 'node:stream';
import { releaseRelayed } from './relay-buffers.js';
import type { Spool } from './spool.js';

/**
 * A response's spool, in front of which its output is compressed: the query's output goes through
 * `compressor` (a streaming compressor, br's: gzip is deflated in the query processes instead) and
 * what comes out is spooled. It is full while the compressor has as much waiting as its buffer
 * takes, and the query's processes then wait: a split export's two processes run at the
 * compressor's pace, the output of ranges ahead held in memory as their order needs, where a
 * compressor behind the spool left them to spool the whole body to disk before it. Reads come from
 * the spool, compressed.
 */
export class CompressingSpool {
  /** Bytes taken so far, before compression: the body's bytes for the download. */
  bytesIn = 0;
  private failure: Error | undefined;
  /** Who waits for room (`onRoom`). */
  private waiting: (() => void) | undefined;

  constructor(
    private readonly spool: Spool,
    private readonly compressor: Transform,
  ) {
    compressor.on('data', (chunk: Buffer) => {
      if (spool.append(chunk)) return;
      // The client is behind: the compressor stops until it catches up, then what waits for it fills up.
      compressor.pause();
      spool.onRoom(() => compressor.resume());
    });
    compressor.on('end', () => spool.end());
    compressor.on('error', (err: Error) => {
      this.failure = err;
      spool.end();
    });
  }

  get full(): boolean {
    return this.compressor.writableLength >= this.compressor.writableHighWaterMark;
  }

  append(data: Buffer): boolean {
    if (this.compressor.writableEnded || this.compressor.destroyed) return false;
    this.bytesIn += data.length;
    this.compressor.write(data, () => {
      // Compressed: its memory may go to another read, and a writer waiting may go on.
      releaseRelayed(data);
      this.tellWaiting();
    });
    return !this.full;
  }

  /**
   * Calls `resume` once the compressor holds half its fill or less (at once if it is not full): the
   * writer's next output comes while the compressor works through the rest. Waiting for it to take
   * everything ('drain') left it idle while the run's processes woke and wrote again: br exports
   * ran with the compressor busy about half the time.
   */
  onRoom(resume: () => void): void {
    if (!this.full) return resume();
    this.waiting = resume;
  }

  private tellWaiting(): void {
    if (!this.waiting || this.compressor.writableLength > this.compressor.writableHighWaterMark / 2) return;
    const resume = this.waiting;
    this.waiting = undefined;
    resume();
  }

  /** No more data will come: the compressor ends its stream, which then ends the spool. */
  end(): void {
    if (!this.compressor.writableEnded) this.compressor.end();
  }

  /** The next compressed chunk; null once all was read. Rejects if the compressor failed, never handing on a body cut short as whole. */
  async read(): Promise<Buffer | null> {
    const chunk = await this.spool.read();
    if (this.failure) throw this.failure;
    return chunk;
  }

  close(): void {
    this.compressor.destroy();
    this.spool.close();
  }
}
