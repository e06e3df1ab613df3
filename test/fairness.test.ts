import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { addBigScraper, addTinyScraper, dataUrl, startServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/cli.js';
import { runaway } from './helpers/query-pool.js';

/** Rows for ever, as fast as SQLite makes them. */
const endlessExport = "with recursive c(x) as (select 1 union all select x + 1 from c) select x, printf('%090d', x) as t from c";

let server: TestServer;
const keys: string[] = [];

before(async () => {
  server = await startServer({ queryProcesses: 2, longQueries: 2, queryTimeoutMs: 2000, clientIdleTimeoutMs: 20_000, keyQueue: 4 });
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin']) keys.push((await server.catalog.addUser(name)).key);
  await addBigScraper(server, 'alice/big');
});
after(() => server.close());

const url = (key: string, query: string, format = 'json') => dataUrl(server.base, 'alice/big', format, { key, query });

/** Every process ready and idle, nothing waiting: a test starts from a quiet pool. */
const quietPool = () =>
  waitFor(() => {
    const s = server.pool.stats();
    return s.ready === server.config.queryProcesses && s.busy === 0 && s.waiting === 0;
  }, 10_000);

/** Makes a request and hands back the response unread, paused: a client that reads nothing yet. */
function slowRequest(target: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(target, (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
  });
}

/** Reads what is left of a response; resolves with its size and whether it ended complete. */
function finish(res: http.IncomingMessage): Promise<{ bytes: number; complete: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0;
    res.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    res.on('end', () => resolve({ bytes, complete: res.complete }));
    res.on('error', () => resolve({ bytes, complete: false }));
    res.on('aborted', () => resolve({ bytes, complete: false }));
    res.resume();
  });
}

test('slow readers do not hold query processes: everyone else is served while they read', async (t) => {
  // A server of its own: two 25 MB exports at once must be made within the query limit on a
  // machine busy with other test files, which the other tests' 2 s does not leave room for.
  const roomy = await startServer({ queryProcesses: 2, queryTimeoutMs: 60_000, clientIdleTimeoutMs: 60_000 });
  t.after(() => roomy.close());
  const roomyKeys = await Promise.all(['alice', 'bob', 'carol'].map(async (name) => (await roomy.catalog.addUser(name)).key));
  await addBigScraper(roomy, 'alice/big');
  const roomyUrl = (key: string, query: string) => dataUrl(roomy.base, 'alice/big', 'json', { key, query });
  // As many slow readers as processes, each of a 25 MB result (another key each, so none waits on its key).
  const slow = await Promise.all([0, 1].map((i) => slowRequest(roomyUrl(roomyKeys[i]!, 'select * from big'))));
  for (const res of slow) assert.equal(res.statusCode, 200);
  // Their queries are done (their output spooled), though their clients have read next to nothing.
  await waitFor(() => roomy.pool.stats().busy === 0, 60_000);
  const quick = await fetch(roomyUrl(roomyKeys[2]!, 'select 1 as one'));
  assert.deepEqual(await quick.json(), [{ one: 1 }]);
  assert.ok(
    slow.every((res) => !res.complete),
    'the slow responses are still being read',
  );
  // And the slow readers still get every byte, in order.
  for (const res of slow) {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    assert.equal((await finish(res)).complete, true);
    assert.equal((JSON.parse(Buffer.concat(chunks).toString()) as unknown[]).length, 200000);
  }
});

test('an endless export to a slow reader ends at the query time limit, and holds no process meanwhile beyond it', async () => {
  const res = await slowRequest(url(keys[0]!, endlessExport, 'ndjson'));
  assert.equal(res.statusCode, 200);
  const quick = await fetch(url(keys[1]!, 'select 2 as two'));
  assert.deepEqual(await quick.json(), [{ two: 2 }]);
  const { complete } = await finish(res);
  assert.equal(complete, false, 'an endless body is cut short, never ended as if complete');
  await waitFor(() => server.pool.stats().busy === 0, 10_000);
});

test("one key's flood of runaway queries does not keep another key waiting behind it", async () => {
  await quietPool();
  const held = Array.from({ length: 6 }, () => new AbortController());
  const answered: string[] = [];
  const statuses: number[] = [];
  const flood = held.map((c, i) =>
    fetch(url(keys[0]!, runaway), { signal: c.signal })
      .then(async (r) => {
        await r.arrayBuffer();
        statuses.push(r.status);
        answered.push(`flood${i}`);
      })
      .catch(() => {}),
  );
  await waitFor(() => server.pool.stats().busy === 2 && server.pool.stats().waiting === 4, 5000);
  const other = await fetch(url(keys[1]!, 'select 3 as three'));
  answered.push('other');
  assert.deepEqual(await other.json(), [{ three: 3 }]);
  // The other key's query takes the first process that frees: after at most the two running ones.
  assert.ok(answered.indexOf('other') <= 2, `answered in order: ${answered.join(' ')}`);
  // The two that ran were stopped at the time limit. The four still queued behind them would each
  // run out the same limit (~8 s of CPU more, shown by the limits tests): their client gives up.
  await waitFor(() => statuses.length >= 2, 10_000);
  assert.deepEqual(statuses.slice(0, 2), [400, 400], 'runaways stopped at the limit');
  for (const c of held) c.abort();
  await Promise.all(flood);
});

test('past its queue a key gets 429 SIPHON_ERR_KEY_BUSY with Retry-After; other keys are served', async () => {
  await quietPool();
  const held = Array.from({ length: 6 }, () => new AbortController());
  const calls = held.map((c) => fetch(url(keys[3]!, runaway), { signal: c.signal }).catch(() => 'aborted'));
  await waitFor(() => server.pool.stats().waiting === 4, 5000);
  const refused = await fetch(url(keys[3]!, 'select 1'));
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.match(await refused.text(), /already has 2 queries running and 4 waiting/);
  for (const c of held) c.abort();
  await Promise.all(calls);
  await quietPool();
  assert.deepEqual(await (await fetch(url(keys[4]!, 'select 4 as four'))).json(), [{ four: 4 }]);
});

test('a query that turns long while the long lane is full is parked, then finishes', async () => {
  // Both processes run long queries at once; with a long lane of 2 neither parks. A server with a
  // lane of 1 parks the second, its clock stopped, and the two run one after the other (~5 s on a
  // quiet 2-core machine). The running one keeps its limit: at nice 10, beside three other test
  // files on two cores four times slower, one took longer than 30 s. The limit is not what is tested.
  const lane1 = await startServer({ queryProcesses: 2, longQueries: 1, queryTimeoutMs: 120_000 });
  try {
    const { key: k1 } = await lane1.catalog.addUser('one');
    const { key: k2 } = await lane1.catalog.addUser('two');
    await addTinyScraper(lane1, 'one/n');
    const longSql = 'with recursive c(x) as (select 1 union all select x + 1 from c limit 12000000) select count(*) as n from c';
    const at = (key: string) => dataUrl(lane1.base, 'one/n', 'json', { key, query: longSql });
    const both = [fetch(at(k1)), fetch(at(k2))];
    await waitFor(() => lane1.pool.stats().parked === 1, 10_000);
    assert.equal(lane1.pool.stats().long, 1);
    for (const res of await Promise.all(both)) assert.deepEqual(await res.json(), [{ n: 12000000 }]);
    const { ready, busy, waiting, long, parked } = lane1.pool.stats();
    assert.deepEqual({ ready, busy, waiting, long, parked }, { ready: 2, busy: 0, waiting: 0, long: 0, parked: 0 });
  } finally {
    await lane1.close();
  }
});
