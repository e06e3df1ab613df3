import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseParams, percentDecode } from '../../src/utils/query-string.js';
import { redactUrl } from '../../src/log/redact.js';
import { randomTexts } from '../helpers/random-text.js';

const key = 'sph_0123456789abcdefghijklmnopqrstuv';

test('parameters are decoded as forms are, names too, never throwing', () => {
  assert.deepEqual({ ...parseParams('%6Bey=a&k%65y=b&ke%79=c') }, { key: ['a', 'b', 'c'] });
  assert.deepEqual({ ...parseParams('query=select+1%2C%202&callback=cb') }, { query: 'select 1, 2', callback: 'cb' });
  assert.deepEqual({ ...parseParams('a=%ZZ&b=%&c=%E2%82%AC&d=%FF&e') }, { a: '%ZZ', b: '%', c: '€', d: '\uFFFD', e: '' });
  assert.deepEqual({ ...parseParams('&&=x&') }, { '': 'x' });
  const polluting = parseParams('__proto__=x&constructor=y');
  assert.equal(polluting.__proto__, 'x');
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('every spelling that authenticates as `key` is redacted from a logged URL; so is any other unknown parameter', () => {
  for (const name of ['key', '%6Bey', 'k%65y', 'ke%79', '%6b%65%79', 'KEY', 'api_key', 'token', 'x?key', '%00']) {
    const url = `/alice/planning/data.json?query=select+1&${name}=${key}&callback=cb`;
    const logged = redactUrl(url);
    assert.ok(!logged.includes(key.slice(4)), `${name}: ${logged}`);
    assert.ok(logged.includes('query=select+1') && logged.includes('callback=cb'), logged);
    if (parseParams(url.split('?')[1]!).key !== undefined) assert.ok(logged.includes('key=[redacted]'), logged);
  }
  // A key-shaped value anywhere: in the path, or in a known parameter after a `;`.
  assert.equal(redactUrl(`/alice/${key}/data.json`), '/alice/[redacted]/data.json');
  assert.equal(redactUrl(`/alice/%73ph_${key.slice(4)}/data.json?query=1`), '/alice/[redacted]/data.json?query=1');
  assert.equal(redactUrl('/alice/sph/%5F/data.json'), '/alice/sph/%5F/data.json');
  assert.equal(redactUrl(`/a/b/data.json?query=select+1;key=${encodeURIComponent(key)}`), '/a/b/data.json?[redacted]');
  assert.equal(redactUrl(`/a/b/data.json#?key=${key}`), '/a/b/data.json#[redacted]');
  // Long values are cut.
  const long = redactUrl(`/a/b/data.json?query=${'x'.repeat(5000)}`);
  assert.ok(long.length < 1100 && long.endsWith('…[4006 more]'), long.slice(-30));
});

test('percentDecode: escapes of valid UTF-8 or not, well formed or not, decode as their bytes would, invalid UTF-8 as U+FFFD', () => {
  const bytesWay = (text: string) =>
    text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
  const pieces = [
    'a',
    ' ',
    '%',
    '%2',
    '%20',
    '%2F',
    '%25',
    '%41',
    '%e9',
    '%C3%A9',
    '%c3',
    '%E4%B8%AD',
    '%F0%9F%98%80',
    '%ED%A0%80',
    '%C0%AF',
    '%FF',
    '%EF%BB%BF',
    '%zz',
    'é',
    '中',
  ];
  for (const text of randomTexts(pieces, 5000, 11, 5)) assert.equal(percentDecode(text), bytesWay(text), text);
});
