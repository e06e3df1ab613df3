import { createReadStream } from 'node:fs';
import type { Readable, Transform } from 'node:stream';
import { compressorFor, type ContentCoding } from './compressors.js';
import { gzipAround } from './gzip-member.js';
import type { QueryPool } from './pool.js';
import type { QueryJob } from './protocol.js';
import type { QueryRun } from './query-run.js';
import { releaseRelayed } from './relay-buffers.js';

/**
 * A response body already in the coding the client asked for, as a route streams it: what it sends
 * is `stream`'s bytes, and the rest is what a download is recorded with and what the sent bytes'
 * memory goes back to.
 */
export interface CodedBody {
  /** The bytes the client gets, in the coding. It fails with what made it fail; destroying it stops whatever makes it. */
  readonly stream: Readable;
  /**
   * Compressed as it is sent (a file's, or a query's gzip, whose end is written once the query has
   * ended): its size is known at its end only, so it is always sent chunked, never in one write.
   */
  readonly compressedAsSent: boolean;
  /** The query behind it, for its timing; none for a file. */
  readonly run: QueryRun | undefined;
  /** Rows made, once the query has completed; null for a file. */
  rows(): number | null;
  /** Its bytes before compression, given the bytes of `stream` sent: none when none were (a HEAD). */
  bytes(sent: number): number;
  /** The socket is done with `chunk`, one of `stream`'s: its memory may be read into again. */
  sent(chunk: Buffer): void;
}

const keepAll = (): void => {};

/** `coder` reads `source`: the source's failure is the coder's, and a coder ended or destroyed stops its source. */
function codedFrom(source: Readable, coder: Transform): Transform {
  source.on('error', (error) => coder.destroy(error));
  coder.on('close', () => source.destroy());
  return source.pipe(coder);
}

/**
 * Runs `job` for `key` in `pool`, its body in `coding`. A query's body is compressed before it is
 * spooled, so its processes run at the pace of its compression, over two when it is split: gzip is
 * deflated in the processes (frame-deflater.ts) and wrapped here; br is made by a compressor the run
 * feeds (compressing-spool.ts). Its bytes before compression are the run's to count. Its output
 * comes in buffers the server reads into again once they are sent (relay-buffers.ts).
 */
export function queryBody(pool: QueryPool, job: QueryJob, key: string, coding: ContentCoding): CodedBody {
  const deflate = coding === 'gzip';
  const run = pool.run(deflate ? { ...job, deflate } : job, key, true, deflate ? undefined : compressorFor(coding));
  const deflated = () => run.deflated;
  return {
    stream: deflate ? codedFrom(run, gzipAround(deflated)) : run,
    compressedAsSent: deflate,
    run,
    rows: () => run.rows,
    bytes: (sent) => (coding === 'identity' || sent === 0 ? sent : run.inflatedBytes),
    sent: releaseRelayed,
  };
}

/**
 * A file's body (the `sqlite` format's download), compressed as it is read if `coding` asks: the
 * whole file, or its bytes from `range.start` to `range.end` (included), never compressed.
 */
export function fileBody(file: string, coding: ContentCoding, range?: { start: number; end: number }): CodedBody {
  const source = createReadStream(file, range);
  const compressor = compressorFor(coding);
  let read = 0;
  if (compressor) {
    source.on('data', (chunk: Buffer | string) => {
      read += chunk.length;
    });
  }
  return {
    stream: compressor ? codedFrom(source, compressor) : source,
    compressedAsSent: compressor !== undefined,
    run: undefined,
    rows: () => null,
    bytes: (sent) => (compressor && sent > 0 ? read : sent),
    sent: keepAll,
  };
}
