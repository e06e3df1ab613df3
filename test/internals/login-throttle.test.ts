/**
 * The login throttle's counts on a clock of the test's own (no waiting): sign-ups per address in
 * windows that start at the first, 0 turning them off, and the bound on the counters it keeps.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keptCounters, LoginThrottle } from '../../src/accounts/login-throttle.js';

function throttleAt(signupsPerAddress: number) {
  const clock = { now: 1_000_000 };
  const throttle = new LoginThrottle({ perAccount: 5, perAddress: 50, signupsPerAddress, windowMs: 60_000 }, () => clock.now);
  return { clock, throttle };
}

test('sign-ups from one address are refused at the limit until the window from the first one ends', () => {
  const { clock, throttle } = throttleAt(2);
  throttle.signedUp('192.0.2.1');
  clock.now += 10_000;
  throttle.signedUp('192.0.2.1');
  assert.equal(throttle.signupWaitSeconds('192.0.2.1'), 50);
  assert.equal(throttle.signupWaitSeconds('192.0.2.2'), 0, 'another address');
  assert.equal(throttle.waitSeconds('anyone', '192.0.2.1'), 0, 'sign-ups are not wrong passwords');
  clock.now += 50_000;
  assert.equal(throttle.signupWaitSeconds('192.0.2.1'), 0, 'a new window');
});

test('--signups-per-address 0 counts nothing and never refuses', () => {
  const { throttle } = throttleAt(0);
  for (let i = 0; i < 100; i++) throttle.signedUp('192.0.2.1');
  assert.equal(throttle.signupWaitSeconds('192.0.2.1'), 0);
});

test('the sign-up counters are bounded: beyond those kept, the least recently counted address is forgotten', () => {
  const { throttle } = throttleAt(1);
  throttle.signedUp('192.0.2.1');
  assert.ok(throttle.signupWaitSeconds('192.0.2.1') > 0);
  for (let i = 0; i < keptCounters; i++) throttle.signedUp(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  assert.equal(throttle.signupWaitSeconds('192.0.2.1'), 0, 'dropped, so memory stays bounded');
  assert.ok(throttle.signupWaitSeconds('10.0.0.0') > 0, 'the others are kept');
});

test('a counter keeps at most 46 characters of its key, so a flood of 64 KB names holds no more than short ones', () => {
  const { throttle } = throttleAt(1);
  const long = (end: string) => `${'x'.repeat(40)}${end}${'y'.repeat(64 * 1024)}`;
  for (let i = 0; i < 5; i++) throttle.failed(long(String(i)), `proxy-made ${'z'.repeat(40)}${i}${'w'.repeat(16 * 1024)}`);
  // Every one counted under the same cut key: past the five tries, any such name waits.
  assert.ok(throttle.waitSeconds(long('another'), '192.0.2.9') > 0, 'names alike in their first 40 characters count as one');
  assert.equal(throttle.waitSeconds('x'.repeat(39), '192.0.2.9'), 0, 'a real account name is counted apart');
  throttle.signedUp(`a${'b'.repeat(50)}`);
  assert.ok(throttle.signupWaitSeconds(`a${'b'.repeat(45)}c`) > 0, 'addresses alike in their first 46 characters count as one');
});
