import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Transform, type TransformOptions } from 'node:stream';
import zlib from 'node:zlib';
import { after, test } from 'node:test';
import { compressorFor, compressorOutputBytes } from '../../src/pool/compressors.js';
import { CompressingSpool } from '../../src/pool/compressing-spool.js';
import { Spool, SpoolBudget } from '../../src/pool/spool.js';
import { tempDir } from '../helpers/fixture-db.js';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

/** A br compressor as a query's run gets one, or with a buffer of its own. */
function brotli(writableHighWaterMark?: number): Transform {
  const options: zlib.BrotliOptions & Pick<TransformOptions, 'writableHighWaterMark' | 'readableHighWaterMark'> = {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 },
    writableHighWaterMark,
    readableHighWaterMark: compressorOutputBytes,
  };
  return writableHighWaterMark === undefined
    ? compressorFor('br')!
    : zlib.createBrotliCompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, ...options });
}

/** Text that compresses, different in every chunk: numbers scrambled by a multiplier. */
const chunkOf = (i: number) => Buffer.from(Array.from({ length: 2000 }, (_, j) => `${((i * 2000 + j) * 2654435761) % 1000003},`).join(''));

async function readAll(spool: CompressingSpool): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let chunk = await spool.read(); chunk; chunk = await spool.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const waitForRoom = (spool: CompressingSpool) => new Promise<void>((resolve) => spool.onRoom(resolve));

test('what goes in comes out compressed, in order; the bytes taken are counted before compression', async () => {
  const spool = new CompressingSpool(
    new Spool({ dir, memoryBytes: 2 ** 20, maxFileBytes: 2 ** 20, budget: new SpoolBudget(2 ** 20) }),
    brotli(64 * 1024),
  );
  const chunks = Array.from({ length: 40 }, (_, i) => chunkOf(i));
  const read = readAll(spool);
  for (const chunk of chunks) if (!spool.append(chunk)) await waitForRoom(spool);
  spool.end();
  const body = await read;
  assert.deepEqual(zlib.brotliDecompressSync(body), Buffer.concat(chunks));
  assert.ok(body.length < Buffer.concat(chunks).length / 2, `${body.length}`);
  assert.equal(spool.bytesIn, Buffer.concat(chunks).length);
  spool.close();
});

test('full while the compressor holds its fill: a writer that waits for room holds no more than that', async () => {
  const spool = new CompressingSpool(
    new Spool({ dir, memoryBytes: 2 ** 20, maxFileBytes: 2 ** 20, budget: new SpoolBudget(2 ** 20) }),
    brotli(20_000),
  );
  let taken = 0;
  while (taken < 100 && spool.append(chunkOf(taken))) taken += 1;
  assert.ok(spool.full);
  // Each chunk is ~14 KB: the second fills a 20 KB buffer (one may already be at work).
  assert.ok(taken <= 2, `${taken} chunks taken before it was full`);
  await waitForRoom(spool);
  assert.equal(spool.full, false);
  spool.close();
  // A run's own compressor takes 16 frames of 64 KB: its processes are not held for every frame.
  const run = new CompressingSpool(
    new Spool({ dir, memoryBytes: 2 ** 20, maxFileBytes: 2 ** 20, budget: new SpoolBudget(2 ** 20) }),
    brotli(),
  );
  let frames = 0;
  while (frames < 100 && run.append(Buffer.concat(Array.from({ length: 5 }, (_, i) => chunkOf(frames * 5 + i))).subarray(0, 65536)))
    frames += 1;
  assert.ok(frames >= 14 && frames <= 16, `${frames} frames taken before it was full`);
  run.close();
});

test('a writer waiting for room goes on once the compressor holds half its fill, not once it has taken everything', async () => {
  const compressor = brotli(200_000);
  const spool = new CompressingSpool(
    new Spool({ dir, memoryBytes: 2 ** 20, maxFileBytes: 2 ** 20, budget: new SpoolBudget(2 ** 20) }),
    compressor,
  );
  const read = readAll(spool);
  let i = 0;
  while (spool.append(chunkOf(i))) i += 1;
  await waitForRoom(spool);
  // Still at work on what it holds, so it is busy while the writer's next output comes.
  assert.ok(compressor.writableLength > 0 && compressor.writableLength <= 100_000, `${compressor.writableLength} bytes held`);
  spool.end();
  await read;
  spool.close();
});

test('a client that does not read stops the compressor, and then the writer: nothing grows without bound', async () => {
  // A spool of 1 KB in memory and 1 KB on disk fills at once; then the compressor keeps its output, and stops taking input.
  const inner = new Spool({ dir, memoryBytes: 1024, maxFileBytes: 1024, budget: new SpoolBudget(2 ** 20) });
  const spool = new CompressingSpool(inner, brotli(20_000));
  let taken = 0;
  for (let i = 0; i < 200; i++) {
    if (!spool.append(chunkOf(i))) {
      // Room that never comes is what is shown: a moment to let it come, then the count stops.
      const room = await Promise.race([waitForRoom(spool).then(() => true), new Promise((resolve) => setTimeout(resolve, 300, false))]);
      if (!room) break;
    }
    taken += 1;
  }
  // Held within a few chunks of ~14 KB: the compressor's fill (20 KB), and what its output buffer took before it stopped.
  assert.ok(taken <= 6, `${taken} chunks taken`);
  spool.close();
});

test('a compressor that fails ends the reading with its error, never as a whole body', async () => {
  const failing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      callback(chunk.includes('fail') ? new Error('compressor failed') : null, chunk);
    },
  });
  const spool = new CompressingSpool(
    new Spool({ dir, memoryBytes: 2 ** 20, maxFileBytes: 2 ** 20, budget: new SpoolBudget(2 ** 20) }),
    failing,
  );
  spool.append(Buffer.from('first '));
  spool.append(Buffer.from('fail'));
  spool.end();
  const chunks: Buffer[] = [];
  await assert.rejects(async () => {
    for (let chunk = await spool.read(); chunk; chunk = await spool.read()) chunks.push(chunk);
  }, /compressor failed/);
  assert.equal(Buffer.concat(chunks).toString(), 'first ');
  spool.close();
});
