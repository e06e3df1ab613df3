import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scraperCacheKey } from '../../src/store/scraper-key.js';

test('a scraper cache key is one per spelling of a name, and never one for two different pairs', () => {
  assert.equal(scraperCacheKey('Alice', 'Planning'), scraperCacheKey('alice', 'PLANNING'), 'ASCII case folds');
  assert.notEqual(scraperCacheKey('İlke', 'k'), scraperCacheKey('ilke', 'k'), 'only ASCII folds, as SQLite NOCASE does');
  // Names from path segments can hold anything a client encodes, the separator included.
  const pairs: [string, string][] = [
    ['a/b', 'c'],
    ['a', 'b/c'],
    ['a', '/b/c'],
    ['a/', 'b/c'],
    ['1:a', 'b'],
    ['1', ':a/b'],
    ['', 'a/b'],
    ['a/b', ''],
  ];
  const keys = new Set(pairs.map(([owner, name]) => scraperCacheKey(owner, name)));
  assert.equal(keys.size, pairs.length);
});
