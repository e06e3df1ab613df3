/**
 * A gzip body made as the query processes and the server make it: each range's data frames deflated
 * in its own process (frame-output.ts with a FrameDeflater), the ranges' deflate streams one after
 * the other, and the gzip header, final block and trailer around them (gzip-member.ts). zlib's own
 * gunzip, which checks the CRC-32 and the length, reads it back.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { gzipAround } from '../../src/pool/gzip-member.js';
import { crc32Combine } from '../../src/pool/crc32-combine.js';
import { FrameDeflater } from '../../src/pool/frame-deflater.js';
import { FrameOutput } from '../../src/pool/frame-output.js';
import { FrameParser, FrameType, type Deflated, type EndPayload } from '../../src/pool/protocol.js';

/** One range as a process sends it: its text in `pieces`, flushed after each; its data, inflated lengths and end. */
async function deflatedRange(pieces: string[]): Promise<{ data: Buffer[]; inflated: number; end: Deflated }> {
  const sent: Buffer[] = [];
  const output = new FrameOutput(
    async (frame) => {
      sent.push(Buffer.from(frame));
    },
    () => true,
  );
  output.deflater = new FrameDeflater();
  for (const piece of pieces) {
    await output.text(piece);
    await output.flush();
  }
  await output.finish(FrameType.end, JSON.stringify({ rows: 0, deflated: output.deflater.deflated } satisfies EndPayload));
  const frames = new FrameParser().push(Buffer.concat(sent));
  const last = frames.pop()!;
  assert.equal(last.type, FrameType.end);
  let inflated = 0;
  const data: Buffer[] = [];
  for (const frame of frames) {
    if (frame.type === FrameType.inflated) inflated += frame.payload.readUInt32BE(0);
    else data.push(frame.payload);
  }
  return { data, inflated, end: (JSON.parse(last.payload.toString()) as EndPayload).deflated! };
}

/** Text that compresses (repeated words, refers back across frames) with some that hardly does (scrambled numbers). */
function text(seed: number, length: number): string {
  const words = ['alpha', 'beta', '中文', 'é', '"quoted"', '\n', String(seed)];
  const scrambled = (i: number) => ((i * 2_654_435_761 + seed) % 2 ** 32).toString(36) + ((i * 40_503 + seed) % 65_521).toString(36);
  let s = '';
  for (let i = 0; s.length < length; i++) s += words[(i * seed) % words.length] + (i % 17 === 0 ? scrambled(i) : ' ');
  return s;
}

test('ranges deflated apart, joined in order inside one gzip member, read back byte for byte', async () => {
  const ranges = [
    [text(3, 100), text(5, 70_000), text(7, 300_000), ''],
    [],
    [text(11, 40_000)],
    [text(13, 1), text(17, 33_000), text(19, 33_000)],
  ];
  const made = await Promise.all(ranges.map((pieces) => deflatedRange(pieces)));
  let whole: Deflated = { crc: 0, bytes: 0 };
  for (const [i, range] of made.entries()) {
    const bytes = Buffer.byteLength(ranges[i]!.join(''));
    assert.equal(range.inflated, bytes, `range ${i}: the inflated frames count its bytes`);
    assert.equal(range.end.bytes, bytes);
    whole = { crc: crc32Combine(whole.crc, range.end.crc, range.end.bytes), bytes: whole.bytes + range.end.bytes };
  }
  const body = await buffer(Readable.from(made.flatMap((r) => r.data)).pipe(gzipAround(() => whole)));
  assert.equal(zlib.gunzipSync(body).toString(), ranges.flat().join(''));
  // Each frame was deflated with what came before it as its dictionary: as small as one stream.
  const oneStream = zlib.gzipSync(ranges.flat().join(''), { level: 1 });
  assert.ok(body.length < oneStream.length * 1.05, `${body.length} bytes against ${oneStream.length}`);
});

test('every frame ends on a flush: what arrived so far decodes to the text sent so far', async () => {
  const pieces = [text(23, 5000), text(29, 90_000), text(31, 10)];
  const { data } = await deflatedRange(pieces);
  const gzip = gzipAround(() => undefined);
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  for (const [i, frame] of data.entries()) {
    await new Promise<void>((resolve) => gzip.write(frame, () => resolve()));
    const sofar = zlib.gunzipSync(Buffer.concat(out), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString();
    assert.equal(sofar, pieces.slice(0, i + 1).join(''), `after frame ${i}`);
  }
  // The source ended without saying what it deflated: an error, never a trailer made up.
  gzip.end();
  await assert.rejects(new Promise((resolve, reject) => gzip.on('error', reject).on('end', resolve)), /without saying what it deflated/);
});

test('an empty body is a whole gzip member too', async () => {
  const body = await buffer(Readable.from([]).pipe(gzipAround(() => ({ crc: 0, bytes: 0 }))));
  assert.equal(zlib.gunzipSync(body).length, 0);
});
