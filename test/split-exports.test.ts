/**
 * Whole-table exports split into rowid ranges over two query processes (src/pool/ranges.ts): the
 * body must be byte for byte the unsplit one. Two real servers on the same data, one splitting
 * every few rows and one never, answer the same calls; the split one's log says which were split.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

const fixtureSql = `
create table plain (id integer primary key, t text, r real, n, b blob);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 50)
insert into plain select x,
  case x % 5 when 0 then null when 1 then 'say "hi", ok' when 2 then 'line' || char(10) || 'break' when 3 then '<&> ' || char(8232) else 'é中 ' || x end,
  x * 0.1, case when x % 3 = 0 then null else x * 1000000007 end, case when x % 7 = 0 then x'00ff' end
from c;
create table gaps (id integer primary key, v text);
insert into gaps values (1, 'a'), (2, 'b'), (3, 'c'), (100, 'd'), (1000, 'e'), (1001, 'f'), (1002, 'g'), (1003, 'h'), (5000, 'i'), (1000000, 'j'), (1000001, null);
create table bunched (id integer primary key, t text, r real);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 600)
insert into bunched select x, case x % 3 when 0 then '"<' || x || '>' || char(10) when 1 then 'é' || char(8233) || x else 'plain ' || x end, x / 7.0 from c;
insert into bunched values (1000000000, 'far', -0.0);
create table extremes (v text);
insert into extremes (rowid, v) values (-9223372036854775808, 'min'), (-5, 'neg'), (0, 'zero'), (7, 'seven'), (9223372036854775806, 'near'), (9223372036854775807, 'max');
create table "Odd ""name""" (rowid text, v text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 12) insert into "Odd ""name""" select 'r' || x, x from c;
create table single (id integer primary key, v text);
insert into single values (42, 'one');
create table empty (id integer primary key, v text);
create table shadows (rowid, _rowid_, oid);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 12) insert into shadows select x, x, x from c;
create table wr (k text primary key, v) without rowid;
with recursive c(x) as (select 1 union all select x + 1 from c where x < 12) insert into wr select printf('%03d', 100 - x), x from c;
create table covered (a, b);
create index covered_all on covered (b, a);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 12) insert into covered select x, 100 - x from c;
create view plainview as select * from plain;
`;

/**
 * Tables a split server splits (with its 3 rows a range), and those it must not. A range is read 3
 * rows in one call and the rest, if it holds more, streamed: `bunched`'s first range holds 600 rows,
 * cut in batches (of 256) at other rows than the unsplit query's, among strings to escape.
 */
const splitTables = ['plain', 'gaps', 'bunched', 'extremes', '"Odd ""name"""'];
const wholeTables = ['single', 'empty', 'shadows', 'wr', 'plainview', 'PLAIN limit 5'];
const calls: { format: string; params?: Record<string, string> }[] = [
  { format: 'json' },
  { format: 'json', params: { callback: 'cb' } },
  { format: 'csv' },
  { format: 'ndjson' },
];

let split: TestServer;
let whole: TestServer;
const keys = new Map<TestServer, string>();

before(async () => {
  [split, whole] = await Promise.all([startServer({ exportRangeRows: 3 }), startServer({ exportRangeRows: 0 })]);
  for (const server of [split, whole]) {
    keys.set(server, (await server.catalog.addUser('alice')).key);
    const db = makeDb(server.dataDir, 'split.sqlite', fixtureSql);
    await server.catalog.addScraper('alice/split', db, { isPrivate: false, description: '' });
  }
});
after(() => Promise.all([split.close(), whole.close()]));

const url = (server: TestServer, format: string, query: string, params: Record<string, string> = {}) =>
  dataUrl(server.base, 'alice/split', format, { key: keys.get(server)!, query, ...params });

async function body(target: string, init?: RequestInit): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(target, init);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The `ranges` and `bytes` the split server logged for calls of `query` in `format`, once their lines are written. */
async function loggedCalls(format: string, query: string, calls: number): Promise<{ ranges?: number; bytes: number }[]> {
  const asked = new URLSearchParams({ query }).toString();
  const lines = () =>
    split
      .logs()
      .split('\n')
      .filter((l) => l.includes(`/data.${format}?`) && l.includes(asked))
      .map((l) => JSON.parse(l) as { ranges?: number; bytes: number });
  await waitFor(() => lines().length >= calls, 5000);
  return lines();
}

test('a split export is byte for byte the unsplit one, in every format that splits, in every coding', async () => {
  for (const table of [...splitTables, ...wholeTables]) {
    const query = `select * from ${table}`;
    for (const { format, params } of calls) {
      const what = `${format} ${JSON.stringify(params ?? {})} of ${query}`;
      // fetch asks for gzip, deflate and br unless told otherwise.
      const plain = { headers: { 'accept-encoding': 'identity' } };
      const [a, b] = await Promise.all([body(url(split, format, query, params), plain), body(url(whole, format, query, params), plain)]);
      assert.equal(a.res.status, 200, what);
      assert.equal(b.res.status, 200, what);
      assert.equal(a.res.headers.get('content-type'), b.res.headers.get('content-type'), what);
      assert.ok(a.bytes.equals(b.bytes), `${what}: ${a.bytes.toString()} !== ${b.bytes.toString()}`);
      for (const coding of ['gzip', 'br']) {
        // fetch decodes the body; the header says it came encoded.
        const encoded = await body(url(split, format, query, params), { headers: { 'accept-encoding': coding } });
        assert.equal(encoded.res.headers.get('content-encoding'), coding, what);
        assert.ok(encoded.bytes.equals(b.bytes), `${what}, ${coding}`);
      }
    }
    // The json calls above of a table that splits were split, whatever their coding (gzip deflated
    // in the query processes, range by range; br compressed as the ranges come, in order).
    // In the order asked: json uncompressed, gzip, br, then JSONP's three.
    const logged = await loggedCalls('json', query, 6);
    const ranges = logged.map((l) => l.ranges);
    const splits = Array<boolean>(6).fill(splitTables.includes(table));
    assert.deepEqual(
      ranges.map((r) => r !== undefined),
      splits,
      `${query}: ${ranges.join()}`,
    );
    assert.ok(
      ranges.every((r) => r === undefined || r > 1),
      `${query}: ${ranges.join()}`,
    );
    // Each call's bytes are its body's before compression: counted by the query processes for gzip,
    // and by the run for br.
    const jsonParams: Record<string, string>[] = [{}, { callback: 'cb' }];
    const [json, jsonp] = await Promise.all(
      jsonParams.map((params) => body(url(whole, 'json', query, params), { headers: { 'accept-encoding': 'identity' } })),
    );
    assert.deepEqual(
      logged.map((l) => l.bytes),
      [json, json, json, jsonp, jsonp, jsonp].map((b) => b!.bytes.length),
      query,
    );
  }
});

test('a split export answers HEAD and revalidation as an unsplit one does', async () => {
  const target = url(split, 'csv', 'select * from plain');
  const identity = { 'accept-encoding': 'identity' };
  const got = await fetch(target, { headers: identity });
  const etag = got.headers.get('etag');
  assert.ok(etag);
  await got.arrayBuffer();
  const head = await fetch(target, { method: 'HEAD', headers: identity });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('etag'), etag);
  assert.equal((await head.arrayBuffer()).byteLength, 0);
  const again = await fetch(target, { headers: { ...identity, 'if-none-match': etag } });
  assert.equal(again.status, 304);
});

test('a key allowed one query at a time never splits: the second process would be one more of its queries', async () => {
  const one = await startServer({ exportRangeRows: 3, keyConcurrency: 1 });
  try {
    const key = (await one.catalog.addUser('bob')).key;
    await one.catalog.addScraper('bob/split', makeDb(one.dataDir, 'split.sqlite', fixtureSql), { isPrivate: false, description: '' });
    const plain = { headers: { 'accept-encoding': 'identity' } };
    const expected = (await body(url(whole, 'json', 'select * from plain'), plain)).bytes;
    const got = await body(dataUrl(one.base, 'bob/split', 'json', { key, query: 'select * from plain' }), plain);
    assert.ok(got.bytes.equals(expected));
    await waitFor(() => one.logs().includes('"rows":50'), 5000);
    assert.ok(!one.logs().includes('"ranges"'), 'not split');
  } finally {
    await one.close();
  }
});
