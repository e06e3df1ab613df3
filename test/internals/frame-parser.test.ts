import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { encodeFrame, FrameParser, FrameType, type Frame } from '../../src/pool/protocol.js';

/** Consecutive data pieces as one frame: what a data frame carried, however it came. */
function joinData(frames: Frame[]): Frame[] {
  const runs: { type: FrameType; pieces: Buffer[] }[] = [];
  for (const f of frames) {
    const last = runs[runs.length - 1];
    if (f.type === FrameType.data && last?.type === FrameType.data) last.pieces.push(f.payload);
    else runs.push({ type: f.type, pieces: [f.payload] });
  }
  return runs.map((r) => ({ type: r.type, payload: Buffer.concat(r.pieces) }));
}

test('frames come out whole, data in pieces as it comes, however the stream is cut', () => {
  const types = [FrameType.end, FrameType.data, FrameType.end, FrameType.data, FrameType.error, FrameType.data, FrameType.plan];
  const payloads = [
    Buffer.alloc(0),
    randomBytes(3),
    randomBytes(70_000),
    randomBytes(1),
    randomBytes(5),
    randomBytes(300_000),
    randomBytes(9),
  ];
  const stream = Buffer.concat(payloads.map((p, i) => encodeFrame(types[i]!, p)));
  for (const cut of [1, 2, 4, 5, 7, 4096, 65_536, stream.length]) {
    const parser = new FrameParser();
    const frames: Frame[] = [];
    for (let at = 0; at < stream.length; at += cut) frames.push(...parser.push(stream.subarray(at, at + cut)));
    for (const f of frames) {
      if (f.type === FrameType.data)
        assert.ok(f.payload.length > 0 && f.payload.length <= cut, 'a piece is never empty, nor more than came');
    }
    const joined = joinData(frames);
    assert.deepEqual(
      joined.map((f) => f.payload),
      payloads,
      `cut every ${cut} bytes`,
    );
    assert.deepEqual(
      joined.map((f) => f.type),
      types,
    );
  }
});

test('a data piece is a view into what came, not a copy', () => {
  const chunk = encodeFrame(FrameType.data, Buffer.from('rows'));
  const [frame] = new FrameParser().push(chunk);
  assert.equal(frame!.payload.buffer, chunk.buffer);
});

test('nothing is kept pointing into a chunk once push returns: one buffer can be read into again and again', () => {
  const types = [FrameType.plan, FrameType.data, FrameType.end, FrameType.error, FrameType.data, FrameType.end];
  const payloads = [randomBytes(700), randomBytes(5000), randomBytes(40), randomBytes(300), randomBytes(2), randomBytes(9)];
  const stream = Buffer.concat(payloads.map((p, i) => encodeFrame(types[i]!, p)));
  for (const cut of [1, 3, 6, 64, 999]) {
    const parser = new FrameParser();
    const reused = Buffer.alloc(cut);
    const frames: Frame[] = [];
    for (let at = 0; at < stream.length; at += cut) {
      const length = stream.copy(reused, 0, at, at + cut);
      // What a caller keeps it copies before the next read, as the server's reader keeps data (relay-buffers.ts).
      for (const f of parser.push(reused.subarray(0, length))) frames.push({ type: f.type, payload: Buffer.from(f.payload) });
      reused.fill(0xee);
    }
    const joined = joinData(frames);
    assert.deepEqual(
      joined.map((f) => f.payload),
      payloads,
      `cut every ${cut} bytes`,
    );
  }
});
