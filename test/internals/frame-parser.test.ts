import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { encodeFrame, FrameParser, FrameType, type Frame } from '../../src/pool/protocol.js';

test('frames come out whole however the stream is cut', () => {
  const payloads = [Buffer.alloc(0), randomBytes(3), randomBytes(70_000), randomBytes(1), randomBytes(300_000)];
  const stream = Buffer.concat(payloads.map((p, i) => encodeFrame(i % 2 ? FrameType.data : FrameType.end, p)));
  for (const cut of [1, 2, 4, 5, 7, 4096, 65_536, stream.length]) {
    const parser = new FrameParser();
    const frames: Frame[] = [];
    for (let at = 0; at < stream.length; at += cut) frames.push(...parser.push(stream.subarray(at, at + cut)));
    assert.deepEqual(
      frames.map((f) => f.payload),
      payloads,
      `cut every ${cut} bytes`,
    );
    assert.deepEqual(
      frames.map((f) => f.type),
      payloads.map((_, i) => (i % 2 ? FrameType.data : FrameType.end)),
    );
  }
});
