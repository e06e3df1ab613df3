import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LRUCache } from 'lru-cache';

// The lru-cache package, held to what Siphon's caches rely on (a count bound, a size bound whose
// too-large entries are not kept, least recently used out first), as they configure it.

const keys = (cache: LRUCache<string, number>, all: string[]) => all.filter((k) => cache.get(k) !== undefined);

test('the LRU cache keeps at most its capacity, dropping the least recently used', () => {
  const cache = new LRUCache<string, number>({ max: 2 });
  cache.set('a', 1);
  cache.set('b', 2);
  cache.get('a');
  cache.set('c', 3);
  assert.deepEqual(keys(cache, ['a', 'b', 'c']), ['a', 'c']);
});

test('the LRU cache with a size bound drops the oldest until the total fits, and never keeps an entry larger than the bound', () => {
  const cache = new LRUCache<string, number>({ max: 10, maxSize: 10, sizeCalculation: (_, key) => key.length });
  cache.set('aaaa', 1);
  cache.set('bbbb', 2);
  cache.set('cc', 3); // 10: fits
  assert.deepEqual(keys(cache, ['aaaa', 'bbbb', 'cc']), ['aaaa', 'bbbb', 'cc']);
  cache.set('dddd', 4); // 14: the oldest (aaaa, read first above) goes
  assert.deepEqual(keys(cache, ['aaaa', 'bbbb', 'cc', 'dddd']), ['bbbb', 'cc', 'dddd']);
  cache.set('cc', 5); // replacing an entry counts its size once
  assert.equal(cache.get('cc'), 5);
  assert.deepEqual(keys(cache, ['bbbb', 'cc', 'dddd']), ['bbbb', 'cc', 'dddd']);
  cache.set('x'.repeat(11), 6);
  assert.equal(cache.get('x'.repeat(11)), undefined);
  assert.deepEqual(keys(cache, ['bbbb', 'cc', 'dddd']), ['bbbb', 'cc', 'dddd'], 'an entry too large evicts nothing');
  cache.clear();
  cache.set('eeeeeeeeee', 7);
  assert.equal(cache.get('eeeeeeeeee'), 7, 'clear() gives the whole bound back');
});

test('the LRU cache never drops an entry read between every two others coming in, however many come', () => {
  for (const capacity of [2, 3, 4, 7, 64]) {
    const cache = new LRUCache<string, number>({ max: capacity });
    cache.set('hot', 0);
    for (let i = 0; i < 10 * capacity; i++) {
      assert.equal(cache.get('hot'), 0, `capacity ${capacity}, after ${i} others`);
      cache.set(`cold${i}`, i);
    }
    assert.equal(cache.get(`cold${10 * capacity - capacity}`), undefined, 'the others still come and go');
  }
});

test('the LRU cache drops the same entries as a list kept in order would, over long runs of sets, gets and deletes', () => {
  for (const capacity of [1, 2, 5, 64]) {
    for (let run = 0; run < 20; run++) {
      const cache = new LRUCache<string, number>({ max: capacity });
      const order: string[] = []; // oldest first
      let seed = capacity * 1000 + run;
      const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
      const universe = capacity * 3;
      for (let op = 0; op < capacity * 200; op++) {
        const key = `k${random(universe)}`;
        const at = order.indexOf(key);
        const kind = random(10);
        if (kind < 9) {
          // A set, or a hit: either makes the key the newest.
          if (kind < 5) cache.set(key, op);
          else if (cache.get(key) === undefined) continue;
          if (at !== -1) order.splice(at, 1);
          order.push(key);
          if (order.length > capacity) order.shift();
        } else {
          cache.delete(key);
          if (at !== -1) order.splice(at, 1);
        }
      }
      const all = Array.from({ length: universe }, (_, i) => `k${i}`);
      assert.deepEqual(
        keys(cache, all),
        all.filter((k) => order.includes(k)),
        `capacity ${capacity}, run ${run}`,
      );
    }
  }
});
