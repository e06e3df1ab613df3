import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameOutput } from '../../src/pool/frame-output.js';
import { FrameParser, FrameType, maxFramePayload, type Frame } from '../../src/pool/protocol.js';

/**
 * An output whose writes are kept as sent, and compared at the end with what they hold then: a pipe
 * that never takes them, so no frame's bytes may be used again.
 */
function recordedOutput() {
  const sent: { frame: Buffer; copy: Buffer }[] = [];
  const output = new FrameOutput(
    async (frame) => {
      sent.push({ frame, copy: Buffer.from(frame) });
    },
    () => false,
  );
  const frames = (): Frame[] => {
    for (const { frame, copy } of sent) assert.ok(frame.equals(copy), 'a sent frame was changed afterwards');
    return new FrameParser().push(Buffer.concat(sent.map((s) => s.frame)));
  };
  return { output, sent, frames };
}

test('text of every size and script comes out whole, in data frames no larger than the limit, the end frame last', async () => {
  const { output, sent, frames } = recordedOutput();
  const queries: string[][] = [];
  let seed = 11;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const pieces = ['a', 'é', '中', '\ud83d\ude00', 'row,"x"\n', 'lone \ud800 high'];
  // Enough small queries to run through several buffers, and a few large pieces that span frames.
  for (let q = 0; q < 400; q++) {
    const texts: string[] = [];
    for (let n = next() % 6; n > 0; n--) {
      const size = q % 50 === 7 ? 300_000 + (next() % 1000) : next() % 3000;
      let text = '';
      while (text.length < size) text += pieces[next() % pieces.length];
      texts.push(text);
      await output.text(text);
      if (next() % 4 === 0) await output.flush();
    }
    await output.finish(FrameType.end, JSON.stringify({ rows: q }));
    queries.push(texts);
  }
  assert.ok(sent.length >= 400);
  const all = frames();
  let at = 0;
  for (const [q, texts] of queries.entries()) {
    const data: Buffer[] = [];
    while (all[at]!.type === FrameType.data) {
      assert.ok(all[at]!.payload.length > 0, 'no empty data frame');
      assert.ok(all[at]!.payload.length <= maxFramePayload);
      data.push(all[at++]!.payload);
    }
    assert.equal(Buffer.concat(data).toString(), Buffer.from(texts.join('')).toString(), `query ${q}'s data`);
    assert.deepEqual(JSON.parse(all[at++]!.payload.toString()), { rows: q });
  }
  assert.equal(at, all.length);
});

test('a query that fails midway leaves nothing of its unsent data to the next', async () => {
  const { output, frames } = recordedOutput();
  await output.text('sent ');
  await output.flush();
  await output.text('never sent');
  output.discard();
  await output.text('next');
  await output.finish(FrameType.end, '{"rows":1}');
  assert.deepEqual(
    frames().map((f) => [f.type, f.payload.toString()]),
    [
      [FrameType.data, 'sent '],
      [FrameType.data, 'next'],
      [FrameType.end, '{"rows":1}'],
    ],
  );
});

test('frames start at the beginning of their buffer again once the pipe has taken every byte, never while it holds some', async () => {
  /** What the pipe holds: frames written and not yet taken, with their bytes when written. */
  let inPipe: { frame: Buffer; copy: Buffer }[] = [];
  const sent: Buffer[] = [];
  const output = new FrameOutput(
    async (frame) => {
      inPipe.push({ frame, copy: Buffer.from(frame) });
      sent.push(frame);
    },
    () => inPipe.length === 0,
  );
  const query = async (text: string) => {
    await output.text(text);
    await output.finish(FrameType.end, '{"rows":1}');
  };
  for (const text of ['first', 'second', 'third']) await query(text);
  // Held by the pipe: each query's frames after the last's, none written over.
  const offsets = sent.map((frame) => frame.byteOffset);
  assert.deepEqual(
    offsets,
    [...offsets].sort((a, b) => a - b),
  );
  assert.equal(new Set(offsets).size, 3);
  for (const { frame, copy } of inPipe) assert.ok(frame.equals(copy), 'a frame the pipe held was changed');
  // The pipe takes them all: the next query's frames start where the first query's did, and so on.
  inPipe = [];
  await query('fourth');
  inPipe = [];
  await query('fifth');
  const [first, , , fourth, fifth] = sent;
  for (const frame of [fourth!, fifth!]) {
    assert.equal(frame.buffer, first!.buffer);
    assert.equal(frame.byteOffset, first!.byteOffset);
  }
  assert.deepEqual(
    new FrameParser().push(fifth!).map((f) => [f.type, f.payload.toString()]),
    [
      [FrameType.data, 'fifth'],
      [FrameType.end, '{"rows":1}'],
    ],
  );
});
