/**
 * The query process keeps prepared statements per connection, by SQL text: a query asked again
 * must give exactly what preparing it anew would, whatever ran before it on that process.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { QueryFailed } from '../src/errors.js';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;

before(async () => {
  // One process: every query below meets the statements the ones before it left.
  server = await startServer({ queryProcesses: 1 });
  ({ key } = await server.catalog.addUser('alice'));
  const db = makeDb(server.dataDir, 'first.sqlite', 'create table t (x integer); insert into t values (1), (2);');
  await server.catalog.addScraper('alice/kept', db, { isPrivate: false, description: '' });
});
after(() => server.close());

async function get(query: string): Promise<{ status: number; text: string }> {
  const res = await fetch(dataUrl(server.base, 'alice/kept', 'json', { key, query }));
  return { status: res.status, text: await res.text() };
}

/** A job straight to the pool, past the HTTP layer's SQL check: how a statement it would refuse gets to the process. */
async function direct(sql: string): Promise<unknown> {
  const scraper = (await server.store.findScraper('alice', 'kept'))!;
  const run = server.pool.run({ scraperId: scraper.id, file: scraper.data.file, sql, format: 'json', options: {} }, 'test');
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of run) chunks.push(chunk as Buffer);
  } catch (err) {
    return err;
  }
  return JSON.parse(Buffer.concat(chunks).toString());
}

test('after a publish, the same SQL reads the new data and the new columns', async () => {
  assert.deepEqual(JSON.parse((await get('select * from t')).text), [{ x: 1 }, { x: 2 }]);
  assert.deepEqual(JSON.parse((await get('select * from t')).text), [{ x: 1 }, { x: 2 }]);
  const next = makeDb(server.dataDir, 'second.sqlite', "create table t (x integer, y text); insert into t values (3, 'three');");
  await server.catalog.publish('alice/kept', next);
  assert.deepEqual(JSON.parse((await get('select * from t')).text), [{ x: 3, y: 'three' }]);
});

test('a statement that does not only read is refused every time it is asked, not only the first', async () => {
  for (let i = 0; i < 3; i++) {
    const failure = await direct('begin immediate');
    assert.ok(failure instanceof QueryFailed, `run ${i + 1}`);
    assert.equal(failure.failure.kind, 'not-read', `run ${i + 1}`);
  }
});

test('a query that fails midway fails the same way when asked again, and the process goes on', async () => {
  const failing =
    'with recursive c(n) as (select 1 union all select n + 1 from c where n < 2000) ' +
    'select case when n = 1500 then abs(-9223372036854775808) else n end as v from c';
  for (let i = 0; i < 2; i++) {
    const { status, text } = await get(failing);
    assert.equal(status, 400, text);
    assert.match(text, /integer overflow/);
  }
  assert.deepEqual(JSON.parse((await get('select 1 as one')).text), [{ one: 1 }]);
});

test('more distinct queries than are kept, asked again in any order, each give their own rows', async () => {
  const sql = (i: number) => `select ${i} as v, x from t`;
  const order = [...Array.from({ length: 80 }, (_, i) => i), ...Array.from({ length: 80 }, (_, i) => 79 - i), 3, 3, 40];
  for (const i of order) assert.deepEqual(JSON.parse((await get(sql(i))).text), [{ v: i, x: 3 }], sql(i));
  // Longer than all the SQL a connection keeps (256 K characters): run, not kept, and run again.
  const long = `select 7 as v /* ${'x'.repeat(90_000)} */`;
  for (let i = 0; i < 2; i++) assert.deepEqual(await direct([long, long, long].join(' union all ')), [{ v: 7 }, { v: 7 }, { v: 7 }]);
});
