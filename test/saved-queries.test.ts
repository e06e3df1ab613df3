/**
 * Saved queries' data URLs, `/<owner>/<scraper>/queries/<name>.<format>?<param>=<value>`: the saved
 * SQL, its parameters given by bare name and always bound, recorded as downloads; a private one is
 * its owner's only. And what may be saved: a slug, bounded texts, no parameter named as the URLs'
 * own, at most 100 a scraper. A real server, real query processes, a real data file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { maxSavedQueries, maxTitleChars } from '../src/scrapers/saved-queries.js';
import { maxDescriptionChars } from '../src/limits/web-forms.js';
import { makeDb, townsSql } from './helpers/fixture-db.js';
import { startServer, writtenDownloads, type TestServer } from './helpers/server.js';
import { assertRefused, fetchAnswer } from './helpers/siphon-answers.js';

let server: TestServer;
let alice: string;
let bob: string;
const maxQueryChars = 300;
const byTownSince = 'select id, town from t where town = :town and n >= :min order by id';

before(async () => {
  server = await startServer({ maxQueryChars });
  alice = (await server.catalog.addUser('alice')).key;
  bob = (await server.catalog.addUser('bob')).key;
  const db = makeDb(server.dataDir, 'towns.sqlite', townsSql);
  await server.catalog.addScraper('alice/towns', db, { isPrivate: false, description: '' });
  const save = (name: string, sql: string, isPrivate = false) =>
    server.catalog.saveQuery('alice/towns', { name, title: '', description: '', sql, isPrivate }, maxQueryChars);
  await save('by-town', byTownSince);
  await save('mine', 'select count(*) as n from t', true);
  await save('echo', 'select :v as v');
});
after(() => server.close());

const url = (name: string, format: string, params: Record<string, string>) =>
  `${server.base}/alice/towns/queries/${name}.${format}?${new URLSearchParams(params)}`;

async function ok(target: string, init?: RequestInit): Promise<string> {
  const res = await fetch(target, init);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return text;
}

test('a saved query runs its SQL with its parameters given by bare name, in every row format, and is recorded as a download', async () => {
  const before = (await writtenDownloads(server)).length;
  const params = { key: bob, town: 'Leura', min: '2' };
  assert.deepEqual(JSON.parse(await ok(url('by-town', 'json', params))), [{ id: 2, town: 'Leura' }]);
  assert.equal(await ok(url('by-town', 'csv', params)), 'id,town\n2,Leura\n');
  assert.equal(await ok(url('by-town', 'ndjson', { ...params, min: '0' })), '{"id":1,"town":"Leura"}\n{"id":2,"town":"Leura"}\n');
  // `query` cannot replace the saved SQL; a POST gives the same.
  assert.deepEqual(JSON.parse(await ok(url('by-town', 'json', { ...params, query: 'select 1 as one' }))), [{ id: 2, town: 'Leura' }]);
  const posted = await ok(`${server.base}/alice/towns/queries/by-town.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  assert.deepEqual(JSON.parse(posted), [{ id: 2, town: 'Leura' }]);
  const downloads = (await writtenDownloads(server)).slice(before);
  assert.equal(downloads.length, 5);
  assert.ok(downloads.every((d) => d.query === byTownSince && d.status === 200));
});

test('values that read like SQL are values: they match only themselves, and nothing is dropped', async () => {
  for (const [id, town] of [
    [4, "' or 1=1 --"],
    [5, '"); drop table x; --'],
  ] as const) {
    assert.deepEqual(JSON.parse(await ok(url('by-town', 'json', { key: bob, town, min: '0' }))), [{ id, town }]);
    assert.deepEqual(JSON.parse(await ok(url('echo', 'json', { key: bob, v: town }))), [{ v: town }]);
  }
  const check = await fetch(
    `${server.base}/alice/towns/data.json?${new URLSearchParams({ key: bob, query: 'select count(*) as n from x' })}`,
  );
  assert.deepEqual(await check.json(), [{ n: 1 }]);
});

test("a missing parameter is a 400; an unknown or another account's private query a 404, as is a file format", async () => {
  const missing = await fetchAnswer(await fetch(url('by-town', 'json', { key: bob, town: 'Leura' })));
  assert.match(assertRefused(missing, 400, 'SIPHON_ERR_PARAM_MISSING', 'missing'), /:min/);
  const unknown = await fetchAnswer(await fetch(url('nothing', 'json', { key: bob })));
  const hidden = await fetchAnswer(await fetch(url('mine', 'json', { key: bob })));
  assertRefused(unknown, 404, 'SIPHON_ERR_SAVED_QUERY_NOT_FOUND', 'unknown');
  assertRefused(hidden, 404, 'SIPHON_ERR_SAVED_QUERY_NOT_FOUND', 'private');
  // A name no query can have, a NUL in it (which PostgreSQL refuses in a parameter): not found, never a 5xx.
  assertRefused(await fetchAnswer(await fetch(url('a%00b', 'json', { key: bob }))), 404, 'SIPHON_ERR_SAVED_QUERY_NOT_FOUND', 'NUL');
  assert.equal(hidden.body, unknown.body.replace('nothing', 'mine'), 'a private query is answered as one that does not exist');
  assert.deepEqual(JSON.parse(await ok(url('mine', 'json', { key: alice }))), [{ n: 5 }]);
  assertRefused(await fetchAnswer(await fetch(url('by-town', 'sqlite', { key: bob }))), 404, 'SIPHON_ERR_FORMAT_UNKNOWN', 'sqlite');
});

test('what may be saved: a slug, bounded title and description, SQL within the limit, parameters not named as the URLs', async () => {
  const save = (fields: Partial<{ name: string; title: string; description: string; sql: string }>) =>
    server.catalog.saveQuery(
      'alice/towns',
      { name: 'q', title: '', description: '', sql: 'select 1', isPrivate: false, ...fields },
      maxQueryChars,
    );
  const refusal = (code: string) => (err: unknown) => (err as { code?: string }).code === code;
  await assert.rejects(save({ name: 'By-Town' }), refusal('SIPHON_ERR_SAVED_QUERY_NAME_INVALID'));
  await assert.rejects(save({ name: 'a'.repeat(65) }), refusal('SIPHON_ERR_SAVED_QUERY_NAME_INVALID'));
  assert.equal((await save({ name: 'a'.repeat(64) })).name, 'a'.repeat(64));
  assert.equal((await save({ title: 't'.repeat(maxTitleChars) })).title, 't'.repeat(maxTitleChars));
  await assert.rejects(save({ title: 't'.repeat(maxTitleChars + 1) }), refusal('SIPHON_ERR_SAVED_QUERY_TEXT_INVALID'));
  await assert.rejects(save({ title: 'two\nlines' }), refusal('SIPHON_ERR_SAVED_QUERY_TEXT_INVALID'));
  assert.ok(await save({ description: `${'d'.repeat(maxDescriptionChars - 1)}\n` }));
  await assert.rejects(save({ description: 'd'.repeat(maxDescriptionChars + 1) }), refusal('SIPHON_ERR_SAVED_QUERY_TEXT_INVALID'));
  assert.ok(await save({ sql: `select '${'s'.repeat(maxQueryChars - 9)}'` }));
  await assert.rejects(save({ sql: `select '${'s'.repeat(maxQueryChars - 8)}'` }), refusal('SIPHON_ERR_QUERY_TOO_LONG'));
  await assert.rejects(save({ sql: 'delete from t' }), refusal('SIPHON_ERR_QUERY_NOT_READ'));
  for (const name of ['key', 'callback', 'dl', 'page_size', 'next', 'excel', 'query', 'version']) {
    await assert.rejects(save({ sql: `select :${name}` }), refusal('SIPHON_ERR_SAVED_QUERY_PARAM_RESERVED'), name);
  }
  // The title defaults to the name.
  assert.equal((await save({ name: 'untitled', title: '  ' })).title, 'untitled');
});

test(`a scraper holds at most ${maxSavedQueries} saved queries; saving one of them again still works`, async () => {
  const saved = (await server.store.listQueries((await server.store.findScraper('alice', 'towns'))!.id, true)).length;
  for (let i = saved; i < maxSavedQueries; i++) {
    await server.catalog.saveQuery(
      'alice/towns',
      { name: `n${i}`, title: '', description: '', sql: 'select 1', isPrivate: false },
      maxQueryChars,
    );
  }
  await assert.rejects(
    server.catalog.saveQuery(
      'alice/towns',
      { name: 'one-more', title: '', description: '', sql: 'select 1', isPrivate: false },
      maxQueryChars,
    ),
    (err: unknown) => (err as { code?: string; status?: number }).code === 'SIPHON_ERR_SAVED_QUERIES_TOO_MANY',
  );
  const again = await server.catalog.saveQuery(
    'alice/towns',
    { name: 'echo', title: 'Echo', description: '', sql: 'select :v as v', isPrivate: false },
    maxQueryChars,
  );
  assert.equal(again.title, 'Echo');
  await server.catalog.removeQuery('alice/towns', 'untitled');
  assert.ok(
    await server.catalog.saveQuery(
      'alice/towns',
      { name: 'one-more', title: '', description: '', sql: 'select 1', isPrivate: false },
      maxQueryChars,
    ),
  );
});
