import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeDb } from '../helpers/fixture-db.js';
import { addTinyScraper, dataUrl, startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/cli.js';
import { runaway } from '../helpers/query-pool.js';

const tableCount = 150;

let server: TestServer;
const keys: string[] = [];

before(async () => {
  server = await startServer({ queryProcesses: 6, longQueries: 4, queryTimeoutMs: 60_000 });
  for (const name of ['alice', 'bob', 'carol', 'dave']) keys.push((await server.catalog.addUser(name)).key);
  await addTinyScraper(server, 'alice/n');
  const tables = Array.from(
    { length: tableCount },
    (_, i) => `create table t${i} (id integer primary key, v text); insert into t${i} values (1, 'row of t${i}'), (2, 'more');`,
  ).join('\n');
  await server.catalog.addScraper('alice/many', makeDb(server.dataDir, 'many.sqlite', tables), { isPrivate: false, description: '' });
});
after(() => server.close());

const url = (key: string, query: string, format = 'json') => dataUrl(server.base, 'alice/n', format, { key, query });

test('small queries of other keys are answered while four full exports stream', async () => {
  // A million rows (about 100 MB of ndjson) each: seconds of streaming, far longer than the twenty
  // small queries take; the assertion on exportsDone below fails should they ever end first.
  const exportSql =
    "with recursive c(x) as (select 1 union all select x + 1 from c limit 1000000) select x, printf('%090d', x) as t from c";
  let exportsDone = 0;
  const exports = [0, 0, 1, 1].map((k) =>
    fetch(url(keys[k]!, exportSql, 'ndjson')).then(async (res) => {
      let lines = 0;
      for await (const chunk of res.body as AsyncIterable<Uint8Array>)
        lines += Buffer.from(chunk).toString('latin1').split('\n').length - 1;
      exportsDone += 1;
      return { status: res.status, lines };
    }),
  );
  await waitFor(() => server.pool.stats().long === 4, 20_000);
  for (let i = 0; i < 20; i++) {
    const res = await fetch(url(keys[2]!, `select ${i} as i`));
    assert.deepEqual(await res.json(), [{ i }]);
  }
  assert.ok(exportsDone < 4, 'the small queries were answered while the exports still ran');
  for (const r of await Promise.all(exports)) assert.deepEqual(r, { status: 200, lines: 1_000_000 });
});

test("page views of a many-table scraper never take the API's query processes, and compute previews once", async () => {
  // Every API process busy with a runaway: the page is served all the same, by the previews' own pool.
  const held = Array.from({ length: 6 }, () => new AbortController());
  const runaways = held.map((c, i) => fetch(url(keys[i % 3]!, runaway), { signal: c.signal }).catch(() => 'stopped'));
  await waitFor(() => server.pool.stats().busy === 6, 10_000);
  const views = await Promise.all(Array.from({ length: 4 }, () => fetch(`${server.base}/alice/many`)));
  for (const view of views) {
    assert.equal(view.status, 200);
    const page = await view.text();
    assert.ok(page.includes('row of t0') && page.includes(`row of t${tableCount - 1}`), 'previews of the first and last tables');
  }
  assert.deepEqual(server.previews.stats(), { kept: 1, computing: 0 }, 'one computation for four views');
  assert.equal(server.pool.stats().busy, 6, 'the API processes were never taken');
  const again = await fetch(`${server.base}/alice/many`);
  assert.ok((await again.text()).includes('row of t7'));
  assert.deepEqual(server.previews.stats(), { kept: 1, computing: 0 });
  for (const c of held) c.abort();
  await Promise.all(runaways);
});

test('previews nobody waits for any more are stopped', async () => {
  const file = makeDb(
    server.dataDir,
    'many2.sqlite',
    Array.from({ length: 400 }, (_, i) => `create table t${i} (v text); insert into t${i} values ('x');`).join('\n'),
  );
  await server.catalog.addScraper('alice/many2', file, { isPrivate: false, description: '' });
  const leaving = new AbortController();
  const view = fetch(`${server.base}/alice/many2`, { signal: leaving.signal }).catch(() => 'left');
  await waitFor(() => server.previews.stats().computing === 1, 5000);
  leaving.abort();
  assert.equal(await view, 'left');
  await waitFor(() => server.previews.stats().computing === 0, 5000);
  assert.equal(server.previews.stats().kept, 1, 'nothing kept for the scraper whose visitor left');
});
