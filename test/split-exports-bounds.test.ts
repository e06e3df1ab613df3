/**
 * The bounds a split export (src/pool/ranges.ts) keeps: its client waits on it, never its query
 * processes beyond one; its client leaving, its time limit and a process dying end all of it, and
 * a body cut short is never ended as if complete.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { waitFor } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { childrenRunning, isRunning, working } from './helpers/processes.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
const keys: string[] = [];

/** The scraper `owner/table`, its one table of `rows` rows of ~100 bytes each. */
async function addRows(on: TestServer, owner: string, table: string, rows: number): Promise<void> {
  const db = makeDb(
    on.dataDir,
    `${table}.sqlite`,
    `create table ${table} (id integer primary key, t text);
     with recursive c(x) as (select 1 union all select x + 1 from c where x < ${rows})
     insert into ${table} select x, printf('%090d', x) from c;`,
  );
  await on.catalog.addScraper(`${owner}/${table}`, db, { isPrivate: false, description: '' });
}

before(async () => {
  // A small spool and ranges of 1,000 rows (~100 KB), so an unread export fills its spool at once
  // and waits, in a few of its 600 ranges; the time limit leaves room for a busy machine (a read
  // export of the 600,000 rows took past 15 s beside three other test files at a load of 12).
  server = await startServer({
    queryProcesses: 2,
    exportRangeRows: 1000,
    spoolResponseMb: 1,
    queryTimeoutMs: 30_000,
    clientIdleTimeoutMs: 60_000,
  });
  for (const name of ['alice', 'bob']) keys.push((await server.catalog.addUser(name)).key);
  await addRows(server, 'alice', 'huge', 600_000);
});
after(() => server.close());

const exportUrl = () => dataUrl(server.base, 'alice/huge', 'ndjson', { key: keys[0]!, query: 'select * from huge' });
const quietPool = () =>
  waitFor(() => {
    const s = server.pool.stats();
    return s.ready === server.config.queryProcesses && s.busy === 0 && s.waiting === 0;
  }, 15_000);

/** The response, unread and paused: a client that reads nothing yet. */
function unread(target: string): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = http.get(target, (res) => {
      res.pause();
      resolve({ req, res });
    });
    req.on('error', reject);
  });
}

/** Reads the rest; resolves with whether the body ended complete. */
function finish(res: http.IncomingMessage): Promise<boolean> {
  return new Promise((resolve) => {
    res.on('end', () => resolve(res.complete));
    res.on('error', () => resolve(false));
    res.on('aborted', () => resolve(false));
    res.resume();
  });
}

/** The export's log line, written when it ends, says it was split. */
const loggedSplit = (from: number, timeoutMs = 10_000) =>
  waitFor(
    () =>
      server
        .logs()
        .slice(from)
        .split('\n')
        .some((l) => l.includes('/data.ndjson') && ((JSON.parse(l) as { ranges?: number }).ranges ?? 0) > 1),
    timeoutMs,
  );

/** Pids of this test process's query processes (both of the server's pools). */
const queryProcesses = () => childrenRunning('pool/child.js');

/** From a quiet pool: the export, its client reading nothing yet, once its query runs; and where the log stood before it. */
async function runningUnreadExport(): Promise<{ res: http.IncomingMessage; logFrom: number }> {
  await quietPool();
  const logFrom = server.logs().length;
  const { res } = await unread(exportUrl());
  assert.equal(res.statusCode, 200);
  await waitFor(() => server.pool.stats().busy >= 1, 10_000);
  return { res, logFrom };
}

test('a split export whose client reads nothing ends at its time limit, cut short; another key is served meanwhile', async () => {
  const { res, logFrom } = await runningUnreadExport();
  const quick = await fetch(dataUrl(server.base, 'alice/huge', 'json', { key: keys[1]!, query: 'select 1 as one' }));
  assert.deepEqual(await quick.json(), [{ one: 1 }]);
  // Its spool full, it waits on its client, and that wait is its time: it ends, split, while nothing was read.
  await loggedSplit(logFrom, 60_000);
  await quietPool();
  assert.equal(await finish(res), false, 'an export past its time limit is cut, never ended as if complete');
});

test('a split export whose client goes away stops: its processes work on it no more, and serve others', async () => {
  await quietPool();
  // The previews' process too may be at work (on this table's previews): none may be, to tell.
  await waitFor(async () => (await working(queryProcesses(), 200)).length === 0, 30_000);
  const { req, res } = await unread(exportUrl());
  assert.equal(res.statusCode, 200);
  await waitFor(() => server.pool.stats().busy >= 1, 10_000);
  const atWork = queryProcesses();
  req.destroy();
  // Killed, or let finish the range they had just started (pool.ts): either way, done with it. A
  // process started since, in place of a killed one, may still be busy starting: it is not looked at.
  await quietPool();
  // A process freed a moment ago may still spend a tick on its way to idle (a collection, its last
  // write; one did in CI): one at work on the export would go on using its core.
  await waitFor(async () => (await working(atWork, 300)).length === 0, 5_000);
  const quick = await fetch(dataUrl(server.base, 'alice/huge', 'json', { key: keys[1]!, query: 'select 1 as one' }));
  assert.deepEqual(await quick.json(), [{ one: 1 }]);
});

test('a query process dying in a split export cuts its body short', async () => {
  const { res, logFrom } = await runningUnreadExport();
  for (const pid of queryProcesses()) process.kill(pid, 'SIGKILL');
  assert.equal(await finish(res), false, 'a body cut short is never ended as if complete');
  await loggedSplit(logFrom);
  await quietPool();
});

test('one of a split export’s two processes dying ends the export: the body is cut, the other stops work on it, the dead one is replaced', async () => {
  await quietPool();
  // The previews' process too may be at work (on this table's previews): this test tells processes apart by work.
  await waitFor(async () => (await working(queryProcesses(), 200)).length === 0, 30_000);
  const logFrom = server.logs().length;
  // Read as it comes, so both processes keep working (uncompressed: a compressed body is never split).
  const exported = fetch(exportUrl(), { headers: { 'accept-encoding': 'identity' } }).then(async (res) => {
    try {
      await res.arrayBuffer();
      return true;
    } catch {
      return false;
    }
  });
  await waitFor(() => server.pool.stats().busy === 2, 10_000);
  // The export's two are the query processes at work now.
  let pair: number[] = [];
  await waitFor(async () => (pair = await working(queryProcesses(), 200)).length === 2, 10_000);
  process.kill(pair[0]!, 'SIGKILL');
  assert.equal(await exported, false, 'a body cut short is never ended as if complete');
  await loggedSplit(logFrom);
  await quietPool();
  // The other was killed, or (between two ranges) given back idle: either way no work goes on for a dead export.
  await waitFor(async () => (await working(pair, 300)).length === 0, 5_000);
  assert.ok(!isRunning(pair[0]!));
  const quick = await fetch(dataUrl(server.base, 'alice/huge', 'json', { key: keys[1]!, query: 'select 1 as one' }));
  assert.deepEqual(await quick.json(), [{ one: 1 }]);
});

test('a split export gives its second process back at the end of a range once another query waits', async () => {
  await quietPool();
  const answered: string[] = [];
  // Uncompressed (fetch asks for gzip and br unless told otherwise).
  const exported = fetch(exportUrl(), { headers: { 'accept-encoding': 'identity' } }).then(async (res) => {
    const text = await res.text();
    answered.push('export');
    return text;
  });
  // Both processes on the export: the next query waits for one of them.
  await waitFor(() => server.pool.stats().busy === 2, 10_000);
  const quick = await fetch(dataUrl(server.base, 'alice/huge', 'json', { key: keys[1]!, query: 'select 1 as one' }));
  answered.push('quick');
  assert.deepEqual(await quick.json(), [{ one: 1 }]);
  assert.equal((await exported).split('\n').length, 600_001, 'every row, then the last newline');
  assert.deepEqual(answered, ['quick', 'export'], 'the waiting query was answered while the export still ran');
});

test('a split export read late, its spool full and a range held, still comes whole and in order', async () => {
  await quietPool();
  const { res } = await unread(exportUrl());
  // The range being sent waits on the full spool, the one ahead held: then the client reads it all.
  await waitFor(() => server.pool.stats().busy === 1, 10_000);
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  assert.equal(await finish(res), true);
  const lines = Buffer.concat(chunks).toString().split('\n');
  assert.equal(lines.length, 600_001);
  for (let i = 0; i < 600_000; i += 1) {
    if (!lines[i]!.startsWith(`{"id":${i + 1},`)) assert.fail(`line ${i + 1}: ${lines[i]!.slice(0, 40)}`);
  }
});

test('a split export holds two query processes at most, however many its key may use and its ranges could', async () => {
  const roomy = await startServer({ queryProcesses: 6, keyConcurrency: 4, exportRangeRows: 1000 });
  try {
    const key = (await roomy.catalog.addUser('carol')).key;
    await addRows(roomy, 'carol', 'wide', 200_000);
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, roomy.pool.stats().busy)), 1);
    const res = await fetch(dataUrl(roomy.base, 'carol/wide', 'ndjson', { key, query: 'select * from wide' }), {
      headers: { 'accept-encoding': 'identity' },
    });
    const lines = (await res.text()).split('\n').length;
    clearInterval(sample);
    assert.equal(lines, 200_001);
    assert.equal(most, 2, 'split over two, never more');
  } finally {
    await roomy.close();
  }
});
