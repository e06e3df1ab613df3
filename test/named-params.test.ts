/**
 * `:named` parameters on the data API: `?query=… where town = :town&:town=Leura`, in every row
 * format, by GET and POST, always bound (a value that reads like SQL is a value); the values shape
 * the ETag and the paging token; what is missing, unused or too much is a 400 in Siphon's shape.
 * A real server (splitting exports every 3 rows, so a split would show), a real data file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';
import { assertRefused, fetchAnswer } from './helpers/siphon-answers.js';

let server: TestServer;
let key: string;
/** Short, to be passed cheaply; room for the SQL of 100 values and the values (about 700 characters). */
const maxQueryChars = 1000;
const injections = ["' or 1=1 --", '"); drop table x; --'];

before(async () => {
  server = await startServer({ exportRangeRows: 3, maxQueryChars });
  ({ key } = await server.catalog.addUser('alice'));
  const rows = ['Katoomba', 'Leura', 'Leura', 'Wentworth Falls', ...injections, 'Blackheath', 'Leura', 'Medlow Bath']
    .map((town, i) => `(${i + 1}, '${town.replaceAll("'", "''")}', ${i * 10})`)
    .join(', ');
  const db = makeDb(
    server.dataDir,
    'towns.sqlite',
    `create table t (id integer primary key, town text, n integer); insert into t values ${rows};
     create table x (a); insert into x values (1);`,
  );
  await server.catalog.addScraper('alice/towns', db, { isPrivate: false, description: '' });
});
after(() => server.close());

const url = (format: string, params: Record<string, string>) => dataUrl(server.base, 'alice/towns', format, { key, ...params });
const byTown = 'select id from t where town = :town order by id';

async function rows(params: Record<string, string>): Promise<unknown> {
  const res = await fetch(url('json', params));
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

test('a :named value is bound by name, as text that takes the column affinity, the same name used twice', async () => {
  assert.deepEqual(await rows({ query: byTown, ':town': 'Leura' }), [{ id: 2 }, { id: 3 }, { id: 8 }]);
  assert.deepEqual(await rows({ query: 'select town from t where id = :id or n = :id * 10 - 10 order by id', ':id': '4' }), [
    { town: 'Wentworth Falls' },
  ]);
  assert.deepEqual(
    await rows({ query: 'select id from t where town = :a or town = :b order by id', ':a': 'Katoomba', ':b': 'Medlow Bath' }),
    [{ id: 1 }, { id: 9 }],
  );
  // An empty value is the empty string, not NULL.
  assert.deepEqual(await rows({ query: "select :v = '' as empty, :v is null as missing", ':v': '' }), [{ empty: 1, missing: 0 }]);
  // Names are case-sensitive, as SQLite's.
  assert.deepEqual(await rows({ query: 'select :T as upper, :t as lower', ':T': 'A', ':t': 'b' }), [{ upper: 'A', lower: 'b' }]);
});

test('values that read like SQL are values: they match only themselves, and nothing is dropped', async () => {
  for (const [i, value] of injections.entries()) {
    assert.deepEqual(await rows({ query: byTown, ':town': value }), [{ id: 5 + i }], value);
    assert.deepEqual(await rows({ query: 'select :v as v', ':v': value }), [{ v: value }], value);
  }
  assert.deepEqual(await rows({ query: 'select count(*) as c from x' }), [{ c: 1 }]);
  assert.deepEqual(await rows({ query: 'select count(*) as c from t' }), [{ c: 9 }]);
});

test('every row format binds them, by GET and by POST (form and JSON)', async () => {
  const csv = await fetch(url('csv', { query: byTown, ':town': 'Leura' }));
  assert.equal(await csv.text(), 'id\n2\n3\n8\n');
  const ndjson = await fetch(url('ndjson', { query: byTown, ':town': 'Leura' }));
  assert.equal(await ndjson.text(), '{"id":2}\n{"id":3}\n{"id":8}\n');
  const jsonp = await fetch(url('json', { query: byTown, ':town': 'Leura', callback: 'show' }));
  assert.match((await jsonp.text()).replace(/\s/g, ''), /show\(\[\{"id":2\},\{"id":3\},\{"id":8\}\]\)/);
  const atomSql = "select town as title, '' as content, '' as link, '2026-01-01' as date from t where town = :town";
  const atom = await fetch(url('atom', { query: atomSql, ':town': 'Katoomba' }));
  const feed = await atom.text();
  assert.equal(atom.status, 200, feed);
  assert.equal(feed.match(/<entry>/g)?.length, 1);
  assert.match(feed, /<title[^>]*>Katoomba<\/title>/);
  // The feed's id and self link hold the value: another town is another feed.
  assert.match(feed, /<id>[^<]*%3Atown=Katoomba<\/id>/);
  assert.match(feed, /rel="self"[^>]*%3Atown=Katoomba|%3Atown=Katoomba[^>]*rel="self"/);

  const endpoint = `${server.base}/alice/towns/data.json`;
  const form = await fetch(endpoint, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query: byTown, ':town': injections[0]! }),
  });
  assert.deepEqual(await form.json(), [{ id: 5 }]);
  const json = await fetch(endpoint, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: byTown, ':town': 'Leura' }),
  });
  assert.deepEqual(await json.json(), [{ id: 2 }, { id: 3 }, { id: 8 }]);
  const notText = await fetch(endpoint, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: byTown, ':town': 3 }),
  });
  assertRefused(await fetchAnswer(notText), 400, 'SIPHON_ERR_BODY_INVALID', 'a JSON value that is not a string');
});

test('a name the SQL uses but the call lacks, or one it gives that the SQL does not use, is a 400', async () => {
  const missing = await fetchAnswer(await fetch(url('json', { query: 'select :town, :n', ':n': '1' })));
  assert.match(assertRefused(missing, 400, 'SIPHON_ERR_PARAM_MISSING', 'missing'), /:town/);
  const unused = await fetchAnswer(await fetch(url('csv', { query: byTown, ':town': 'Leura', ':twon': 'Leura' })));
  assert.match(assertRefused(unused, 400, 'SIPHON_ERR_PARAM_UNUSED', 'unused'), /:twon.*uses :town/);
  // Inside a string or a comment, `:town` is text, not a parameter.
  assert.deepEqual(await rows({ query: "select ':town' as t -- :other" }), [{ t: ':town' }]);
  const inString = await fetchAnswer(await fetch(url('json', { query: "select ':town' as t", ':town': 'x' })));
  assertRefused(inString, 400, 'SIPHON_ERR_PARAM_UNUSED', 'in a string');
  // The whole database takes no query, so no values either.
  const file = await fetchAnswer(await fetch(url('sqlite', { ':town': 'Leura' })));
  assertRefused(file, 400, 'SIPHON_ERR_PARAM_UNUSED', 'sqlite');
});

test('at most 100 values, and the SQL and its values within the SQL length limit together', async () => {
  const names = Array.from({ length: 100 }, (_, i) => `p${i}`);
  const sql = `select ${names.map((n) => `:${n}`).join('||')} as v`;
  const values = Object.fromEntries(names.map((n) => [`:${n}`, 'a']));
  const at = await fetch(url('json', { query: sql, ...values }));
  assert.deepEqual(await at.json(), [{ v: 'a'.repeat(100) }]);
  const over = await fetch(url('json', { query: sql, ...values, ':p100': 'a' }));
  assertRefused(await fetchAnswer(over), 400, 'SIPHON_ERR_PARAMS_TOO_MANY', '101 values');
  const query = 'select length(:v) as n';
  const room = maxQueryChars - query.length;
  assert.deepEqual(await rows({ query, ':v': 'é'.repeat(room) }), [{ n: room }]);
  const long = await fetchAnswer(await fetch(url('json', { query, ':v': 'é'.repeat(room + 1) })));
  assertRefused(long, 400, 'SIPHON_ERR_PARAMS_TOO_LONG', 'one character over');
});

test('the values shape the ETag: the same values revalidate, other values do not', async () => {
  const first = await fetch(url('json', { query: byTown, ':town': 'Leura' }));
  await first.arrayBuffer();
  const etag = first.headers.get('etag')!;
  const same = await fetch(url('json', { query: byTown, ':town': 'Leura' }), { headers: { 'if-none-match': etag } });
  assert.equal(same.status, 304);
  const other = await fetch(url('json', { query: byTown, ':town': 'Katoomba' }), { headers: { 'if-none-match': etag } });
  assert.equal(other.status, 200);
  assert.deepEqual(await other.json(), [{ id: 1 }]);
  assert.notEqual(other.headers.get('etag'), etag);
});

test('paging keeps the values: the next link carries them, and its token is refused with other values', async () => {
  const first = await fetch(url('json', { query: 'select id from t where n >= :min order by id', ':min': '20', page_size: '4' }));
  assert.deepEqual(await first.json(), [{ id: 3 }, { id: 4 }, { id: 5 }, { id: 6 }]);
  const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '');
  assert.ok(link, 'a next link');
  const next = new URL(link[1]!);
  assert.equal(next.searchParams.get(':min'), '20');
  next.searchParams.set('key', key);
  const second = await fetch(next);
  assert.deepEqual(await second.json(), [{ id: 7 }, { id: 8 }, { id: 9 }]);
  assert.equal(second.headers.get('link'), null);
  next.searchParams.set(':min', '0');
  assertRefused(await fetchAnswer(await fetch(next)), 400, 'SIPHON_ERR_PAGE_TOKEN_INVALID', 'the token with other values');
});
