import assert from 'node:assert/strict';
import { statfsSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { errorForQuery, QueryFailed } from '../src/errors.js';
import { startingMs } from '../src/pool/slot.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { addBigScraper, addTinyScraper, dataUrl, startServer, type TestServer } from './helpers/server.js';
import { runCli, waitFor } from './helpers/cli.js';
import { runaway } from './helpers/query-pool.js';
import { SmallDisk } from './helpers/small-disk.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startServer({ queryProcesses: 2, rateLimitPerMinute: 1000, maxResponseMs: 1500, clientIdleTimeoutMs: 20_000 });
  ({ key } = await server.catalog.addUser('alice'));
  await addBigScraper(server, 'alice/big');
});
after(() => server.close());

const url = (query: string, format = 'json', k = key) => dataUrl(server.base, 'alice/big', format, { key: k, query });

const tempDisk = new SmallDisk('48m');

test('every data response of a key carries RateLimit-* headers; past the limit, 429 with Retry-After', async () => {
  const limited = await startServer({ queryProcesses: 1, rateLimitPerMinute: 3 });
  try {
    const { key: k } = await limited.catalog.addUser('bob');
    await addTinyScraper(limited, 'bob/n');
    const at = (query: string) => dataUrl(limited.base, 'bob/n', 'json', { key: k, query });
    const ok = await fetch(at('select 1'));
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('ratelimit-limit'), '3');
    assert.equal(ok.headers.get('ratelimit-remaining'), '2');
    assert.ok(Number(ok.headers.get('ratelimit-reset')) > 0);
    const bad = await fetch(at('select nope'));
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('ratelimit-remaining'), '1', 'errors count and say so too');
    const revalidated = await fetch(at('select 1'), { headers: { 'if-none-match': ok.headers.get('etag')! } });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.headers.get('ratelimit-remaining'), '0');
    const refused = await fetch(at('select 1'));
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.match(((await refused.json()) as { error: string }).error, /more than 3 requests in a minute/);
    // Another key has its own count.
    const { key: other } = await limited.catalog.addUser('carol');
    assert.equal((await fetch(dataUrl(limited.base, 'bob/n', 'json', { key: other, query: 'select 1' }))).status, 200);
  } finally {
    await limited.close();
  }
});

test('a full queue answers 503 at once; a query waiting past the queue timeout gets 503 too', async () => {
  // The queue timeout leaves the third request time to arrive while the second still waits, on a busy machine too.
  const busy = await startServer({ queryProcesses: 1, queueLimit: 1, queueTimeoutMs: 2000, queryTimeoutMs: 3000 });
  try {
    const keys = await Promise.all(['a', 'b', 'c'].map(async (n) => (await busy.catalog.addUser(n)).key));
    await addTinyScraper(busy, 'a/n');
    const at = (k: string, query: string) => dataUrl(busy.base, 'a/n', 'json', { key: k, query });
    const running = fetch(at(keys[0]!, runaway));
    await waitFor(() => busy.pool.stats().busy === 1, 5000);
    // Once the runaway no longer counts as just started (`startingMs`), nothing is sent ahead to its
    // process: the next query waits in the queue itself, which is then full. (Sent ahead, it would
    // leave the queue empty for the third, as it did once in CI.) The condition is time itself
    // passing on this process's clock, from before the runaway was seen busy: twice that is past it.
    await new Promise((resolve) => setTimeout(resolve, 2 * startingMs));
    const waiting = fetch(at(keys[1]!, 'select 1'));
    await waitFor(() => busy.pool.stats().waiting === 1, 5000);
    assert.equal(busy.pool.stats().sentAhead, 0);
    const full = await fetch(at(keys[2]!, 'select 1'));
    assert.equal(full.status, 503);
    assert.ok(Number(full.headers.get('retry-after')) > 0);
    assert.match(((await full.json()) as { error: string }).error, /Too many queries are waiting/);
    const timedOut = await waiting;
    assert.equal(timedOut.status, 503);
    assert.ok(Number(timedOut.headers.get('retry-after')) > 0);
    assert.match(((await timedOut.json()) as { error: string }).error, /waited 2 s/);
    assert.equal((await running).status, 400);
  } finally {
    await busy.close();
  }
});

test('a response still going after --max-response-seconds is cut short, and its spool given back', async () => {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(url('select * from big'), (r) => {
        r.pause();
        resolve(r);
      })
      .on('error', reject);
  });
  assert.equal(res.statusCode, 200);
  // Read a trickle, never idle for long, for longer than the 1.5 s lifetime.
  let bytes = 0;
  res.on('data', (c: Buffer) => {
    bytes += c.length;
    res.pause();
    setTimeout(() => res.resume(), 50); // slow on purpose: this client is what the test is about
  });
  const complete = await new Promise<boolean>((resolve) => {
    res.on('end', () => resolve(res.complete));
    res.on('aborted', () => resolve(false));
    res.on('error', () => resolve(false));
    res.resume();
  });
  assert.equal(complete, false);
  assert.ok(bytes < 25_000_000, 'cut before the end');
  await waitFor(() => server.logs().includes('"cut":"too-long"'), 5000);
});

test('an answer written whole that its client does not take is cut at the response lifetime too', async (t) => {
  // Requests in a row on one connection, their answers (60 KB each, each written in one write)
  // never read: once the kernel's buffers are full, an answer stays in the server, and its
  // lifetime runs from there. A server of its own: its key may queue them all.
  const piled = await startServer({ queryProcesses: 1, keyQueue: 400, maxResponseMs: 1500 });
  t.after(() => piled.close());
  const { key: k } = await piled.catalog.addUser('alice');
  await addTinyScraper(piled, 'alice/n');
  const target = new URL(dataUrl(piled.base, 'alice/n', 'json', { key: k, query: 'select zeroblob(45000) as b' }));
  const socket = net.connect(Number(target.port), target.hostname);
  t.after(() => socket.destroy());
  socket.on('error', () => {});
  // Never read: Node stops reading from the kernel once its own buffer is full.
  socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`.repeat(300));
  await waitFor(() => piled.logs().includes('"cut":"too-long"'), 30_000);
});

test('one 60 MB value streams whole', async (t) => {
  // A server of its own: encoding 60 MB as base64 takes seconds on a machine busy with other
  // tests, more than this file's 1.5 s response lifetime, and a limit far from the work.
  const roomy = await startServer({ queryProcesses: 1, queryTimeoutMs: 120_000 });
  t.after(() => roomy.close());
  const { key: k } = await roomy.catalog.addUser('alice');
  await addTinyScraper(roomy, 'alice/n');
  const res = await fetch(
    dataUrl(roomy.base, 'alice/n', 'json', { key: k, query: 'select length(zeroblob(60000000)) as n, zeroblob(60000000) as b' }),
  );
  assert.equal(res.status, 200);
  const body = Buffer.from(await res.arrayBuffer());
  const rows = JSON.parse(body.toString()) as { n: number; b: string }[];
  assert.equal(rows[0]!.n, 60_000_000);
  assert.equal(Buffer.from(rows[0]!.b, 'base64').length, 60_000_000);
});

test('an exception in our own code in a query process is a logged 500, not a 400', async () => {
  const scraper = (await server.store.findScraper('alice', 'big'))!;
  // A job no route would send: a file format run as rows. The query process fails it as its own fault.
  const run = server.pool.run({ scraperId: scraper.id, file: scraper.data.file, sql: 'select 1', format: 'sqlite', options: {} }, 'test');
  const failure = await new Promise<unknown>((resolve) => {
    run.on('error', resolve);
    run.resume();
  });
  assert.ok(failure instanceof QueryFailed);
  assert.equal(failure.failure.kind, 'internal');
  assert.equal(errorForQuery(failure.failure).status, 500);
  assert.match(failure.stack ?? '', /child\.js/, 'the stack of the query process comes along');
});

test('start-up gives up with a message when query processes cannot start', async () => {
  const dataDir = tempDir();
  const started = Date.now();
  const r = await runCli(['serve', '--port', '0', '--query-memory-mb', '64'], { dataDir });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /query processes could not start/);
  assert.ok(Date.now() - started < 30_000, 'within 30 s');
});

test('a temp-file bomb fails with SIPHON_ERR_QUERY_RESOURCES and never fills the disk', { skip: tempDisk.skip }, async (t) => {
  tempDisk.assertMounted();
  t.after(() => tempDisk.unmount());
  // The query processes' temporary folder is the small disk.
  const dataDir = tempDir();
  const tmp = path.join(dataDir, 'tmp');
  symlinkSync(tempDisk.path, tmp);
  // No reserve: the 48 MB disk would be all reserve, and it is the cap on each file that is shown here.
  const small = await startServer({ dataDir, queryProcesses: 1, queryTempMb: 16, queryTimeoutMs: 30_000, diskReserveBytes: 0 });
  try {
    const { key: k } = await small.catalog.addUser('bomber');
    const file = makeDb(
      dataDir,
      'rows.sqlite',
      `
      create table r (id integer primary key);
      with recursive c(x) as (select 1 union all select x + 1 from c where x < 100000) insert into r select x from c;`,
    );
    await small.catalog.addScraper('bomber/r', file, { isPrivate: false, description: '' });
    let leastFree = Infinity;
    const sampler = setInterval(() => {
      const s = statfsSync(tmp);
      leastFree = Math.min(leastFree, s.bavail * s.bsize);
    }, 5);
    const res = await fetch(
      dataUrl(small.base, 'bomber/r', 'json', {
        key: k,
        query: 'select count(distinct b) from (select randomblob(2000) as b from r)',
      }),
    );
    clearInterval(sampler);
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /temporary disk/);
    assert.ok(leastFree > 16 * 2 ** 20, `the tmpfs kept room: ${leastFree} bytes free at the least`);
    // The process that failed is fine for the next query.
    assert.equal((await fetch(dataUrl(small.base, 'bomber/r', 'json', { key: k, query: 'select count(*) from r' }))).status, 200);
  } finally {
    await small.close();
  }
});
