import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RangeOrder } from '../../src/pool/range-order.js';

test('ranges start in order, at most one ahead of the one being sent', () => {
  const order = new RangeOrder(4, 100);
  assert.equal(order.take(), 0);
  assert.equal(order.take(), 1);
  assert.equal(order.startable, false, 'range 2 waits until range 0 has ended');
  assert.deepEqual(order.end(1), [], 'the range ahead ends: nothing is due yet');
  assert.equal(order.startable, false);
  order.end(0);
  assert.equal(order.current, 2, 'range 1 had ended: range 2 is current');
  assert.equal(order.take(), 2);
  assert.equal(order.take(), 3);
  assert.equal(order.startable, false, 'no range left');
  order.end(2);
  order.end(3);
  assert.equal(order.done, true);
});

test('output of the range ahead is held, then due in order when its turn comes', () => {
  const order = new RangeOrder(3, 100);
  order.take();
  order.take();
  assert.equal(order.hold(Buffer.from('b1')), true);
  assert.equal(order.hold(Buffer.from('b2')), true);
  assert.deepEqual(order.end(0).map(String), ['b1', 'b2']);
  assert.equal(order.current, 1);
  assert.deepEqual(order.end(1), []);
  assert.equal(order.current, 2);
});

test('the range ahead holds at most its bound: past it, its process is told to wait', () => {
  const order = new RangeOrder(2, 10);
  order.take();
  order.take();
  assert.equal(order.hold(Buffer.alloc(6)), true);
  assert.equal(order.hold(Buffer.alloc(6)), false, '12 bytes held of 10 allowed');
  assert.equal(order.end(0).length, 2, 'what was held is all due once its turn comes');
});
