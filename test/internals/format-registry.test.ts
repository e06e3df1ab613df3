import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { errorForQuery, QueryFailed, SiphonError } from '../../src/errors.js';
import {
  bodyContentType,
  downloadName,
  findFormat,
  formatNames,
  formatParamNames,
  formatParams,
  queryFailureFor,
  scriptCallback,
} from '../../src/formats/index.js';

const params = (values: Record<string, string>) => (name: string) => values[name];

test('a script parameter (JSONP) is what a format declares: json takes a callback, other formats ignore it', () => {
  const json = findFormat('json')!;
  assert.ok(json.kind === 'rows');
  assert.equal(scriptCallback(json, params({ callback: 'my.cb' })), 'my.cb');
  assert.equal(scriptCallback(json, params({ callback: '1bad' })), undefined, 'an invalid callback gets no errors');
  assert.equal(bodyContentType(json, 'my.cb'), 'application/javascript; charset=utf-8');
  assert.equal(bodyContentType(json, undefined), 'application/json; charset=utf-8');
  assert.equal(downloadName(json, 'my.cb'), 'jsonp');
  assert.equal(downloadName(json, undefined), 'json');
  assert.deepEqual(formatParams(json, params({ callback: 'cb', other: 'x' })), { callback: 'cb' });
  assert.throws(
    () => formatParams(json, params({ callback: 'alert(1)' })),
    (err: unknown) => err instanceof SiphonError && err.code === 'SIPHON_ERR_CALLBACK_INVALID' && err.status === 400,
  );
  for (const name of formatNames.filter((n) => n !== 'json')) {
    const format = findFormat(name)!;
    assert.equal(scriptCallback(format, params({ callback: 'cb' })), undefined, name);
    assert.equal(bodyContentType(format, undefined), format.contentType, name);
    assert.equal(downloadName(format, undefined), name);
    if (format.kind === 'rows') assert.deepEqual(formatParams(format, params({ callback: 'not a name!' })), {}, name);
  }
});

test('the data route, the query-process protocol and the parameter readers name no format nor its parameters: they ask the registry', () => {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src');
  const files = [
    'http/routes/data.ts',
    'http/data-answer.ts',
    'http/format-call.ts',
    'http/query-body.ts',
    'log/redact.ts',
    ...readdirSync(path.join(root, 'pool')).map((f) => `pool/${f}`),
  ];
  assert.deepEqual(formatParamNames, ['dl', 'page_size', 'next', 'callback', 'excel']);
  for (const file of files) {
    const source = readFileSync(path.join(root, file), 'utf8');
    for (const name of [...formatNames, ...formatParamNames, 'jsonp']) assert.ok(!source.includes(`'${name}'`), `${file} names ${name}`);
    assert.doesNotMatch(source, /\bfeed\b|\.callback\b/, `${file} knows a format's options`);
  }
});

test('columns a format needs are its own declaration, and so is the error naming those a query lacks', () => {
  const atom = findFormat('atom')!;
  const json = findFormat('json')!;
  assert.ok(atom.kind === 'rows' && json.kind === 'rows');
  assert.deepEqual(atom.requiredColumns?.names, ['title', 'content', 'link', 'date']);
  const lacking = new QueryFailed({ kind: 'columns', missing: ['link', 'date'] });
  const error = queryFailureFor(atom, lacking);
  assert.ok(error instanceof SiphonError);
  assert.deepEqual([error.code, error.status], ['SIPHON_ERR_ATOM_COLUMNS', 400]);
  assert.match(error.message, /the query has no link, date\./);
  assert.equal(queryFailureFor(json, lacking), lacking, 'json needs no columns');
  const timeout = new QueryFailed({ kind: 'timeout', seconds: 10 });
  assert.equal(queryFailureFor(atom, timeout), timeout, 'other failures are left as they are');
  // The engine's failure names no format: without a format to answer it, it is ours.
  assert.equal(errorForQuery(lacking.failure).code, 'SIPHON_ERR_INTERNAL');
});
