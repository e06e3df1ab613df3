import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueryFailed } from '../../src/errors.js';
import { FairQueue } from '../../src/pool/fair-queue.js';
import { waitFor } from '../helpers/cli.js';

class Item {
  failed: QueryFailed | undefined;
  /** When it failed (performance.now(), the queue's clock). */
  failedAt: number | undefined;
  constructor(
    readonly key: string,
    readonly name: string,
  ) {}
  fail(error: QueryFailed): void {
    this.failed = error;
    this.failedAt = performance.now();
  }
}

const limits = { keyConcurrency: 2, keyQueue: 16, queueLimit: 100, queueTimeoutMs: 60_000 };
/** Fails what a test left waiting: each waiting item's queue timer would hold the file's process for a minute. */
const closing = { failure: { kind: 'closing' } } as QueryFailed;

test("keys take turns: one key's backlog delays another by at most one turn", () => {
  const q = new FairQueue<Item>(limits);
  const flood = Array.from({ length: 10 }, (_, i) => new Item('a', `a${i}`));
  for (const item of flood) q.enqueue(item);
  const b = new Item('b', 'b0');
  q.enqueue(b);
  const order: string[] = [];
  // One slot: each item runs and finishes before the next starts.
  for (let item = q.next(); item; item = q.next()) {
    order.push(item.name);
    q.finished(item);
  }
  assert.equal(order.indexOf('b0'), 1, `b's query is second, after one of a's: ${order.join(' ')}`);
  assert.equal(order.length, 11);
});

test('a key runs at most keyConcurrency items at once', () => {
  const q = new FairQueue<Item>(limits);
  const items = Array.from({ length: 4 }, (_, i) => new Item('a', `a${i}`));
  for (const item of items) q.enqueue(item);
  assert.equal(q.next(), items[0]);
  assert.equal(q.next(), items[1]);
  assert.equal(q.next(), undefined, "a third would exceed the key's concurrency");
  q.finished(items[0]!);
  assert.equal(q.next(), items[2]);
  q.drain(closing);
});

test('a full key queue is refused as key-busy, a full queue as busy', () => {
  const q = new FairQueue<Item>({ ...limits, keyQueue: 2, queueLimit: 3 });
  q.enqueue(new Item('a', 'a0'));
  q.enqueue(new Item('a', 'a1'));
  assert.throws(
    () => q.enqueue(new Item('a', 'a2')),
    (e: QueryFailed) => e.failure.kind === 'key-busy',
  );
  q.enqueue(new Item('b', 'b0'));
  assert.throws(
    () => q.enqueue(new Item('c', 'c0')),
    (e: QueryFailed) => e.failure.kind === 'busy',
  );
  assert.equal(q.waiting, 3);
  q.drain(closing);
});

test('an item that waits too long is taken out and failed, one given back too', async () => {
  const q = new FairQueue<Item>({ ...limits, queueTimeoutMs: 50 });
  const item = new Item('a', 'a0');
  const givenBack = new Item('b', 'b0');
  q.enqueue(item);
  q.enqueue(givenBack);
  // b0 starts (sent ahead to a busy process) and is given back: it waits again, as long as any item may.
  assert.equal(
    q.next((i) => i === givenBack),
    givenBack,
  );
  q.requeue(givenBack);
  await waitFor(() => item.failed !== undefined && givenBack.failed !== undefined, 5000);
  assert.equal(item.failed?.failure.kind, 'queue-timeout');
  assert.equal(givenBack.failed?.failure.kind, 'queue-timeout');
  assert.equal(q.next(), undefined);
  assert.equal(q.waiting, 0);
});

test('each item waits its own time: one queued later fails later, and one that started never fails', async () => {
  const q = new FairQueue<Item>({ ...limits, queueTimeoutMs: 400 });
  const [early, started, late] = [new Item('a', 'a0'), new Item('b', 'b0'), new Item('c', 'c0')];
  const earlyAt = performance.now();
  q.enqueue(early);
  q.enqueue(started);
  assert.equal(
    q.next((i) => i === started),
    started,
  );
  // The later arrival is what the test is about: the time between the two is the point, not a wait for something.
  await new Promise((resolve) => setTimeout(resolve, 250));
  const lateAt = performance.now();
  q.enqueue(late);
  await waitFor(() => early.failed !== undefined && late.failed !== undefined, 5000);
  const kind = (item: Item) => item.failed?.failure.kind;
  assert.equal(kind(early), 'queue-timeout');
  assert.equal(kind(late), 'queue-timeout');
  // Each failed no sooner than its own 400 ms after it came, however late a busy machine runs the timers:
  // the later one was not failed with the first.
  assert.ok(early.failedAt! >= earlyAt + 400, `the first failed ${early.failedAt! - earlyAt} ms after it came`);
  assert.ok(late.failedAt! >= lateAt + 400, `the later one failed ${late.failedAt! - lateAt} ms after it came`);
  assert.equal(kind(started), undefined);
  assert.equal(q.waiting, 0);
});

test('removed and drained items never start', () => {
  const q = new FairQueue<Item>(limits);
  const [a, b] = [new Item('a', 'a0'), new Item('b', 'b0')];
  q.enqueue(a);
  q.enqueue(b);
  assert.equal(q.remove(a), true);
  assert.equal(q.remove(a), false);
  q.drain(closing);
  assert.equal(b.failed?.failure.kind, 'closing');
  assert.equal(q.next(), undefined);
});

test('an item given back waits first of its key, and its key has the turn it did not use', () => {
  const q = new FairQueue<Item>({ ...limits, keyConcurrency: 1 });
  const [a0, a1, b0, b1] = [new Item('a', 'a0'), new Item('a', 'a1'), new Item('b', 'b0'), new Item('b', 'b1')];
  for (const item of [a0, a1, b0, b1]) q.enqueue(item);
  assert.equal(q.next(), a0);
  assert.equal(q.next(), b0);
  assert.equal(q.next(), undefined, 'each key runs one');
  q.finished(a0);
  // b0 was sent ahead to a process that is still busy: it is given back.
  q.requeue(b0);
  assert.equal(q.waiting, 3);
  assert.equal(q.next(), b0, "b's turn again, before a's (a1 may start too), and b0 before b1");
  assert.equal(q.next(), a1);
  q.finished(b0);
  assert.equal(q.next(), b1);
  q.finished(a1);
  q.finished(b1);
  assert.equal(q.waiting, 0);
});

test('next(may) passes over a key whose first item may not go, and takes the next key in turn', () => {
  const q = new FairQueue<Item>(limits);
  const [a0, b0] = [new Item('a', 'a0'), new Item('b', 'b0')];
  q.enqueue(a0);
  q.enqueue(b0);
  assert.equal(
    q.next((item) => item.key !== 'a'),
    b0,
  );
  assert.equal(q.next(), a0, 'a kept its turn');
});
