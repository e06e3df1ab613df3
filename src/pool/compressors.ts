import type { Transform, TransformOptions } from 'node:stream';
import zlib from 'node:zlib';

/** The content codings a data response can be sent in. */
export type ContentCoding = 'br' | 'gzip' | 'identity';

/**
 * Compressed output a compressor holds for a client that does not read, before it stops taking
 * input: set rather than Node's default readable buffer, which Node 22 raised from 16 KB to 64 KB
 * (a stalled br export then held 11 source chunks instead of 6: compressing-spool.test.ts).
 */
export const compressorOutputBytes = 16 * 1024;

/** zlib's streams hand stream options on to their Transform, though its types list only zlib's. */
type StreamOptions = Pick<TransformOptions, 'writableHighWaterMark' | 'readableHighWaterMark'>;

const brotliOptions: zlib.BrotliOptions & StreamOptions = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 },
  // Room for what a 64 KB chunk compresses to in one turn of the thread pool: with zlib's 16 KB,
  // each chunk's output needed two or three, and brotli ran at 170-180 MB/s against 226-246
  // (export rows, one stream, alternating; the same bytes out).
  chunkSize: 64 * 1024,
  // A query's output waits here for it (pool/compressing-spool.ts): room for 16 frames of 64 KB,
  // so its processes go on while it works rather than take turns with it.
  writableHighWaterMark: 1024 * 1024,
  readableHighWaterMark: compressorOutputBytes,
};

/**
 * A streaming compressor for the coding, or none for identity. A query's rows are gzipped in its
 * query processes instead (gzip-member.ts): this gzip is a file's (the `sqlite` format); br is a
 * file's, or a query's, which its run feeds before spooling (pool/compressing-spool.ts).
 *
 * Every write is flushed (`Z_SYNC_FLUSH`, `BROTLI_OPERATION_FLUSH`): a source chunk (about 64 KB
 * from a query process or the file, or whatever a slow query produced in 200 ms) leaves the
 * compressor whole, so clients see rows as they come rather than when the compressor's window fills.
 *
 * Levels, measured here on 64 KB chunks of JSON rows with 40- and 200-character texts (2 cores):
 * gzip 1 74 MB/s to 28 % of the size, gzip 6 (zlib's default) 22 MB/s to 21 %. Brotli, flushed
 * every 64 KB as here, compresses these rows to 27 % at quality 1 as at quality 4 (csv 31 % and
 * 32 %), for a fifth of the CPU (2.3–2.6 µs a row against 12–16): quality 4 ran slower than a json
 * export produces and held br exports under half their speed. Both run on libuv's thread pool, off
 * the event loop.
 */
export function compressorFor(coding: ContentCoding): Transform | undefined {
  switch (coding) {
    case 'gzip':
      return zlib.createGzip({
        level: 1,
        flush: zlib.constants.Z_SYNC_FLUSH,
        readableHighWaterMark: compressorOutputBytes,
      } as zlib.ZlibOptions & StreamOptions);
    case 'br':
      return zlib.createBrotliCompress(brotliOptions);
    case 'identity':
      return undefined;
  }
}
