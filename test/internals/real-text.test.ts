import assert from 'node:assert/strict';
import { test } from 'node:test';
import { realText } from '../../src/formats/values.js';

/** What realText must give: JavaScript's own text, with `.0` kept on integral values. */
const expected = (v: number) => (Number.isInteger(v) && Math.abs(v) < 1e21 ? `${Object.is(v, -0) ? '-0' : v}.0` : String(v));

test("realText gives JavaScript's shortest round-trip text for floats of two decimals or fewer, and for any other", () => {
  const values: number[] = [0, -0, 0.1, 0.2, 0.1 + 0.2, 1.005, 0.125, 0.001, 1e-7, 5e-324, 1.5, 2.5, -2.5, 123.456, 1e21, 1e22];
  for (let k = -20_000; k <= 20_000; k++) values.push(k / 100, k / 10, k / 1000);
  for (const edge of [1e6, 2 ** 31, 2 ** 32, 1e10, 1e11, 2 ** 40, 1e12, 1e13, 2 ** 53]) {
    for (let cents = -300; cents <= 300; cents++) values.push(edge + cents / 100, -edge + cents / 100, (edge * 100 + cents) / 100);
  }
  let seed = 5;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 200_000; i++) {
    const scale = 10 ** Math.floor(next() * 16);
    values.push(Math.round(next() * scale * 100) / 100, -Math.round(next() * scale * 100) / 100, next() * scale, (next() - 0.5) / scale);
  }
  for (const v of values) assert.equal(realText(v), expected(v), `${v}`);
});
