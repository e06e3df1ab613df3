import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { crc32Combine } from '../../src/pool/crc32-combine.js';

test('the CRC-32 of two byte strings one after the other, from each one’s CRC-32 and the second’s length', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  // Empty strings, lengths of every bit pattern up to 2^17, and one of each side of a power of two.
  const lengths = [0, 1, 2, 3, 4, 7, 8, 255, 256, 65_535, 65_536, 65_537, 131_071];
  for (let i = 0; i < 200; i++) lengths.push(next() % 131_072);
  for (const [i, length] of lengths.entries()) {
    const first = randomBytes(lengths[(i * 7) % lengths.length]!);
    const second = randomBytes(length);
    assert.equal(
      crc32Combine(zlib.crc32(first), zlib.crc32(second), second.length),
      zlib.crc32(Buffer.concat([first, second])),
      `${first.length} + ${second.length} bytes`,
    );
  }
});

test('chained over many parts, in order, it is the CRC-32 of them all', () => {
  const parts = Array.from({ length: 50 }, (_, i) => randomBytes((i * 4099) % 70_000));
  let crc = 0;
  for (const part of parts) crc = crc32Combine(crc, zlib.crc32(part), part.length);
  assert.equal(crc, zlib.crc32(Buffer.concat(parts)));
});
