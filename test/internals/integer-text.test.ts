import assert from 'node:assert/strict';
import { test } from 'node:test';
import { integerText } from '../../src/formats/values.js';

test('integerText writes every 64-bit integer exactly, on both sides of the doubles that hold it exactly', () => {
  const edges = [0n, 1n, -1n, 2n ** 53n, 2n ** 63n - 1n, -(2n ** 63n), 10n ** 21n / 1000n];
  const near = edges.flatMap((e) => [e - 2n, e - 1n, e, e + 1n, e + 2n, -e - 1n, -e, -e + 1n]);
  for (const v of near.filter((v) => v >= -(2n ** 63n) && v < 2n ** 63n)) assert.equal(integerText(v), v.toString());
  let seed = 3;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  for (let i = 0; i < 5000; i++) {
    const v = BigInt.asIntN(64, (BigInt(next()) << 33n) ^ (BigInt(next()) << BigInt(next() % 40)) ^ BigInt(next()));
    // Shifted right, the same bits cover every magnitude, most of them within a double's 53.
    const shifted = v >> BigInt(next() % 64);
    assert.equal(integerText(v), v.toString());
    assert.equal(integerText(shifted), shifted.toString());
  }
});
