import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RelayBuffers } from '../../src/pool/relay-buffers.js';

test('a buffer is read into again only once the read and every piece kept from it are given back', () => {
  const buffers = new RelayBuffers(1024, 4);
  const read = buffers.forRead();
  const first = buffers.keep(read.subarray(0, 600));
  const second = buffers.keep(read.subarray(600, 1000));
  assert.equal(first.buffer, read.buffer, 'a large piece is a view, not a copy');
  buffers.release(read);
  buffers.release(first);
  assert.equal(buffers.freeCount, 0, 'a piece is still out');
  assert.notEqual(buffers.forRead().buffer, read.buffer);
  buffers.release(second);
  assert.equal(buffers.freeCount, 1);
  assert.equal(buffers.forRead().buffer, read.buffer, 'read into again');
  assert.deepEqual([buffers.reads, buffers.allocated], [3, 2]);
});

test('a piece under a quarter of its buffer is kept as a copy, and does not hold the buffer', () => {
  const buffers = new RelayBuffers(1024, 4);
  const read = buffers.forRead();
  read.fill(7);
  const small = buffers.keep(read.subarray(10, 265));
  assert.notEqual(small.buffer, read.buffer);
  assert.ok(small.equals(Buffer.alloc(255, 7)));
  buffers.release(read);
  assert.equal(buffers.freeCount, 1, 'free once the read is done with it');
  // Giving back the copy, or giving back twice, changes nothing: the free buffer is not counted twice.
  buffers.release(small);
  buffers.release(read);
  assert.equal(buffers.freeCount, 1);
  assert.equal(buffers.forRead().buffer, read.buffer);
  assert.equal(buffers.forRead().buffer === read.buffer, false, 'handed out once');
});

test('buffers not made here pass through, and are never kept', () => {
  const buffers = new RelayBuffers(1024, 4);
  const other = Buffer.alloc(2048);
  assert.equal(buffers.keep(other), other);
  buffers.release(other);
  assert.equal(buffers.freeCount, 0);
});

test('at most `keepFree` free buffers are kept: more given back are left to the garbage collector', () => {
  const buffers = new RelayBuffers(1024, 3);
  const reads = Array.from({ length: 5 }, () => buffers.forRead());
  for (const read of reads) buffers.release(read);
  assert.equal(buffers.freeCount, 3);
  const again = Array.from({ length: 5 }, () => buffers.forRead());
  assert.equal(new Set(again.map((b) => b.buffer)).size, 5, 'every buffer handed out is its own');
  assert.equal(buffers.allocated, 7);
});
