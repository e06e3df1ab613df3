import { Transform } from 'node:stream';
import type { Deflated } from './protocol.js';

/** RFC 1952's header: no name, time or flags; XFL 4 (the fastest level) and OS 3 (Unix), as zlib writes it at level 1. */
const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3]);

/** An empty final block (fixed Huffman codes, the end-of-block code alone): ends the deflate stream. */
const lastBlock = Buffer.from([3, 0]);

/**
 * A gzip body around a raw deflate stream made in the query processes (pool/frame-deflater.ts):
 * the header goes with the source's first bytes, and once the source has ended, the final block
 * and the trailer, from the CRC-32 and length of what was deflated, which `deflated` knows by then.
 * Nothing comes out before the source's first byte, so a query that fails before it is still
 * answered with an error of its own; a source that fails midway leaves the body without its end.
 */
export function gzipAround(deflated: () => Deflated | undefined): Transform {
  let started = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const first = !started;
      started = true;
      callback(null, first ? Buffer.concat([header, chunk]) : chunk);
    },
    flush(callback) {
      const made = deflated();
      if (!made) return callback(new Error('the query ended without saying what it deflated'));
      const trailer = Buffer.allocUnsafe(8);
      trailer.writeUInt32LE(made.crc, 0);
      trailer.writeUInt32LE(made.bytes % 2 ** 32, 4);
      callback(null, Buffer.concat(started ? [lastBlock, trailer] : [header, lastBlock, trailer]));
    },
  });
}
