import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from '../../src/iso-time.js';

test('isoTime writes what toISOString writes, across seconds, days, years and before 1970', () => {
  const times = [0, 1, 9, 10, 99, 100, 999, 1000, -1, -999, -1000, -1001, 951782399999, 951782400000, 1795789774208];
  // Milliseconds in order and out of order, so the second it keeps is both reused and replaced.
  for (let ms = 1795789774000 - 2500; ms < 1795789774000 + 2500; ms += 7) times.push(ms);
  for (let i = 0; i < 2000; i++) times.push(Math.floor(Math.random() * 4e12) - 1e12);
  for (const ms of times) assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  const before = Date.now();
  const now = Date.parse(isoTime());
  assert.ok(now >= before && now <= Date.now(), 'without an argument, the time now');
});
