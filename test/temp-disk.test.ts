/**
 * Temporary disk: a query's temporary files together stay under --query-temp-mb (each one is also
 * capped, by `ulimit -f`), and no query and no publish takes the free space kept on the data disk
 * (--disk-reserve-mb). The data folder is a small tmpfs, so the disk really fills without them
 * (mounting needs root, as in CI; skipped otherwise).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { errors } from '../src/errors.js';
import { freeBytes } from '../src/limits/disk-reserve.js';
import { listFiles, runCli, waitFor } from './helpers/cli.js';
import { dataUrl, type TestServer } from './helpers/server.js';
import { SmallDisk } from './helpers/small-disk.js';
import { publishTempFiles, putBody, readVersion, versionDb } from './helpers/upload.js';

const mb = 2 ** 20;

/**
 * A query that sorts four times, each sort's temporary file ~19 MB (2,500 rows of 8 KB: SQLite's
 * sorter keeps 16 MB in memory, then writes), all four held until the query ends: ~76 MB together,
 * no file over 20 MB. It answers one row, at its end: nothing is sent before.
 */
const fourSorts = `with r(i) as (select 1 union all select i + 1 from r where i < 2500) select count(*) as n from (${Array(4)
  .fill('select * from (select i, randomblob(8000) as b from r order by random())')
  .join(' union all ')})`;

async function ask(server: TestServer, key: string, query: string): Promise<{ status: number; body: string }> {
  const res = await fetch(dataUrl(server.base, 'alice/plants', 'json', { key, query }));
  return { status: res.status, body: await res.text() };
}

/** Watches the free space of the disk of `dir` until `stop()`, which says the least seen. */
function watchFree(dir: string): { stop(): number } {
  let least = freeBytes(dir);
  const timer = setInterval(() => (least = Math.min(least, freeBytes(dir))), 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.min(least, freeBytes(dir));
    },
  };
}

/** The data folder's files but the metadata store's, which grows as it records. */
const dataFiles = (server: TestServer) => listFiles(server.dataDir).filter((f) => !f.startsWith('siphon.db'));

const capDisk = new SmallDisk('96m');

describe("a query's temporary files together", { skip: capDisk.skip }, () => {
  const capMb = 24;
  let server: TestServer;
  let key: string;
  let otherKey: string;

  before(async () => {
    ({ server, key } = await capDisk.startServer({ queryTempMb: capMb, queryProcesses: 3, queryTimeoutMs: 300_000 }));
    otherKey = (await server.catalog.addUser('bob')).key;
  });
  after(async () => {
    await server?.close();
    capDisk.unmount();
  });

  test('two queries sorting at once are refused with 400 before the disk fills; another key is answered meanwhile; nothing is left', async () => {
    const files = dataFiles(server);
    const freeAtStart = freeBytes(capDisk.path);
    assert.ok(freeAtStart < 2 * 76 * mb, 'unstopped, the two would fill the disk');
    const free = watchFree(capDisk.path);
    let answered = 0;
    const sorting = [ask(server, key, fourSorts), ask(server, key, fourSorts)].map((p) => p.finally(() => (answered += 1)));
    // Their first temporary files are written: they have sorted 16 MB each, they are far from the cap.
    await waitFor(() => freeBytes(capDisk.path) < freeAtStart - 4 * mb, 60_000);
    const small = await ask(server, otherKey, 'select 1 as n');
    assert.equal(small.status, 200, small.body);
    assert.deepEqual(JSON.parse(small.body), [{ n: 1 }]);
    assert.equal(answered, 0, 'answered while both sorted');

    for (const { status, body } of await Promise.all(sorting)) {
      assert.equal(status, 400, body);
      assert.deepEqual(JSON.parse(body), { error: errors.queryTempDisk(capMb).message });
    }
    const least = free.stop();
    assert.ok(least > 8 * mb, `the disk had ${least} bytes free at the least`);
    // Their processes are gone before they are answered, and their files with them.
    assert.deepEqual(dataFiles(server), files);
    assert.ok(freeBytes(capDisk.path) > freeAtStart - mb, 'the room is back');
  });
});

const reserveDisk = new SmallDisk('64m');

describe('the free space kept on the data disk', { skip: reserveDisk.skip }, () => {
  const reserveMb = 24;
  let server: TestServer;
  let key: string;

  before(async () => {
    // Each temporary file may be as large as the disk: only the reserve stops the query.
    ({ server, key } = await reserveDisk.startServer({ diskReserveBytes: reserveMb * mb, queryTempMb: 200, queryTimeoutMs: 300_000 }));
  });
  after(async () => {
    await server?.close();
    reserveDisk.unmount();
  });

  test('a query whose temporary files reach it is refused with 400, before the disk is full', async () => {
    reserveDisk.leaveFree(40 * 1024);
    const files = dataFiles(server);
    const free = watchFree(reserveDisk.path);
    const { status, body } = await ask(server, key, fourSorts);
    assert.equal(status, 400, body);
    assert.deepEqual(JSON.parse(body), { error: errors.queryDiskReserve().message });
    const least = free.stop();
    assert.ok(least > 4 * mb, `the disk had ${least} bytes free at the least`);
    assert.deepEqual(dataFiles(server), files);
  });

  test('a publish that fits the disk but not beside the reserve is refused with 507; with more room it is published', async () => {
    // ~10 MB, on the disk twice for a moment (the upload and its imported copy): 20 MB.
    const db = readFileSync(versionDb(2, 10_000));
    const files = dataFiles(server);
    reserveDisk.leaveFree(40 * 1024);
    const refused = await putBody(server.base, 'alice/plants', db, { 'x-api-key': key });
    assert.equal(refused.status, 507, await refused.clone().text());
    assert.deepEqual(await refused.json(), { error: errors.storageFull().message });
    assert.deepEqual(await readVersion(server.base, 'alice/plants', key), { n: 100, v: 1 });
    assert.deepEqual(dataFiles(server), files);
    assert.deepEqual(publishTempFiles(server.dataDir), []);

    reserveDisk.leaveFree(52 * 1024);
    const published = await putBody(server.base, 'alice/plants', db, { 'x-api-key': key });
    assert.equal(published.status, 200, await published.text());
    assert.deepEqual(await readVersion(server.base, 'alice/plants', key), { n: 200, v: 2 });
  });

  test("the command line's publish keeps it too: refused before its import starts", async () => {
    // Not uploaded (the file is elsewhere): only the copy, ~10 MB, is written to this disk.
    const db = versionDb(3, 10_000);
    reserveDisk.leaveFree(30 * 1024);
    const files = dataFiles(server);
    const flags = ['--disk-reserve-mb', String(reserveMb)];
    const r = await runCli(['scraper', 'publish', 'alice/plants', '--db', db, ...flags], { dataDir: server.dataDir });
    assert.equal(r.code, 1, r.stdout);
    assert.equal(r.stderr, `siphon: ${errors.storageFull().message}\n`);
    assert.deepEqual(dataFiles(server), files);
    reserveDisk.leaveFree(40 * 1024);
    const ok = await runCli(['scraper', 'publish', 'alice/plants', '--db', db, ...flags], { dataDir: server.dataDir });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
