import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RangeOrder } from '../../src/pool/range-order.js';

const text = (order: RangeOrder) => {
  const out: string[] = [];
  for (let data = order.due(); data; data = order.due()) out.push(data.toString());
  return out;
};

test('ranges start in order, at most one ahead of the one being sent when one is allowed', () => {
  const order = new RangeOrder(4, 100, 1);
  assert.equal(order.take(), 0);
  assert.equal(order.take(), 1);
  assert.equal(order.startable, false, 'range 2 waits until range 0 has ended');
  order.end(1);
  assert.equal(order.startable, false, 'the range ahead ended: range 0 still runs');
  order.end(0);
  assert.equal(order.current, 2, 'range 1 had ended with nothing held: range 2 is current');
  assert.equal(order.take(), 2);
  assert.equal(order.take(), 3);
  assert.equal(order.allStarted, true);
  order.end(2);
  order.end(3);
  assert.equal(order.done, true);
});

test('with three allowed ahead, a process that ended a range ahead goes on to the next while the current one runs', () => {
  const order = new RangeOrder(6, 100, 3);
  assert.equal(order.take(), 0);
  assert.equal(order.take(), 1);
  order.hold(1, Buffer.from('b'));
  order.end(1);
  assert.equal(order.startable, true, 'range 0 still runs: range 2 may start');
  assert.equal(order.take(), 2);
  order.end(2);
  assert.equal(order.take(), 3);
  assert.equal(order.startable, false, 'three beyond range 0 have started: range 4 waits for it');
  order.end(0);
  assert.equal(order.current, 1, 'range 1 is due, its output still held');
  assert.equal(order.startable, true);
  assert.deepEqual(text(order), ['b']);
  assert.equal(order.current, 3, 'range 2 had ended with nothing held');
});

test('output not yet due is held, then due in order, and its range stays current until it is all out', () => {
  const order = new RangeOrder(3, 100, 1);
  order.take();
  order.take();
  assert.equal(order.holds(0), false, 'the current range writes straight through');
  assert.equal(order.holds(1), true);
  order.hold(1, Buffer.from('b1'));
  order.end(0);
  assert.equal(order.current, 1);
  assert.equal(order.holds(1), true, 'output of range 1 still held: its next output queues behind it');
  order.hold(1, Buffer.from('b2'));
  order.end(1);
  assert.equal(order.current, 1, 'ended, but its output has not all gone out');
  assert.equal(order.take(), 2, 'range 2 starts one ahead of it');
  order.hold(2, Buffer.from('c1'));
  assert.deepEqual(text(order), ['b1', 'b2', 'c1'], 'each range’s output in turn');
  assert.equal(order.current, 2);
  assert.equal(order.holds(2), false, 'its held output out, range 2 writes straight through');
});

test('a range holds at most its bound: past it, its process is told to wait until it is taken below', () => {
  const order = new RangeOrder(2, 10, 1);
  order.take();
  order.take();
  assert.equal(order.hold(1, Buffer.alloc(6)), true);
  assert.equal(order.hold(1, Buffer.alloc(6)), false, '12 bytes held of 10 allowed');
  assert.equal(order.mayGoOn(1), false);
  order.end(0);
  order.due();
  assert.equal(order.mayGoOn(1), true, '6 bytes held again');
});
