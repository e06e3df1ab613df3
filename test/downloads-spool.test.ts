/**
 * The downloads spool (src/downloads/spool.ts) with a real recorder and a real SQLite store: files
 * are left for new ones past their size bound and removed once recorded, and a spool left by a
 * process that is gone is replayed from where the store says it was recorded, each download once.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { DownloadRecorder } from '../src/downloads/recorder.js';
import { replayAbandonedSpools } from '../src/downloads/spool-replay.js';
import { DownloadSpool, parseSpoolFileName, spoolDir, spoolFileName } from '../src/downloads/spool.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import type { DownloadRecord, Store } from '../src/store/types.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';

const logged: string[] = [];
const log = { error: (_: object, message: string) => logged.push(message), info: (_: object, message: string) => logged.push(message) };
const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
});

/** A data folder with alice's scraper and key, and a download maker for them. */
async function setUp() {
  const dataDir = tempDir();
  const store = openSqliteStore(path.join(dataDir, 'siphon.db'));
  stores.push(store);
  const alice = (await store.createAccount('alice'))!;
  await store.addKey(alice.id, 'k', { prefix: 'sph_1', label: '', readOnly: false, origins: null });
  const key = (await store.findKey('k'))!;
  const file = makeDb(dataDir, 'd.sqlite', 'create table t (x)');
  const scraper = await store.addScraper({
    ownerId: alice.id,
    name: 'plants',
    description: '',
    isPrivate: false,
    data: { file, version: 1, tables: [], sizeBytes: 1, updatedAt: new Date().toISOString() },
  });
  const download = (i: number): DownloadRecord => ({
    scraperId: scraper.id,
    accountId: alice.id,
    keyId: key.id,
    at: new Date().toISOString(),
    format: 'json',
    query: `select ${i}`,
    status: 200,
    rows: 1,
    bytes: 1,
    durationMs: 1,
  });
  const recorded = async () => (await store.downloadStats(scraper.id)).total;
  return { dataDir, store, download, recorded };
}

test('past its size a spool file is left for a new one, and removed (and forgotten) once all it holds is recorded', async () => {
  const { dataDir, store, download, recorded } = await setUp();
  const spool = new DownloadSpool(spoolDir(dataDir), log, 1000);
  const recorder = new DownloadRecorder(store, { maxPending: 10_000, log, spool });
  const files = () => readdirSync(spoolDir(dataDir));
  const first = files();
  assert.equal(first.length, 1);
  for (let i = 0; i < 30; i++) void recorder.record(download(i)); // ~100 bytes each: past 1,000 bytes
  await recorder.flush();
  assert.equal(await recorded(), 30);
  assert.equal(files().length, 1, 'one file again');
  assert.notDeepEqual(files(), first, 'a new one');
  assert.equal(await store.spoolRecorded(parseSpoolFileName(first[0]!)!.id), 0, 'the old one is forgotten by the store');
  await recorder.close();
  assert.deepEqual(files(), [], 'a clean stop removes the spool');
});

test('downloads that keep coming, one every turn of the event loop, are committed in batches of many, not one per turn', async () => {
  const { dataDir, store, download, recorded } = await setUp();
  let commits = 0;
  // The real store, counted: each call is one transaction.
  const counted = {
    recordDownloads: (...args: Parameters<Store['recordDownloads']>) => {
      commits += 1;
      return store.recordDownloads(...args);
    },
    forgetSpool: (spool: string) => store.forgetSpool(spool),
  };
  const recorder = new DownloadRecorder(counted, { maxPending: 1_000_000, log });
  // Each comes from I/O, as a request's does: in the event loop's poll phase, which every turn has,
  // between its timers (where a batch window ends) and its immediates (between two batches).
  const started = Date.now();
  let made = 0;
  while (Date.now() < started + 350) {
    await stat(dataDir);
    void recorder.record(download(made++));
  }
  const windows = Math.ceil((Date.now() - started) / 100);
  await recorder.close();
  assert.equal(await recorded(), made);
  // A batch window's downloads, in batches of up to 500: a window that fills one is written at once,
  // then what came while it was written (two commits); and the last ones, at close.
  const bound = windows + 2 * Math.floor(made / 500) + 1;
  assert.ok(commits <= bound, `${commits} commits for ${made} downloads in ${windows} windows: more than ${bound}`);
});

test("one turn's downloads are written to the spool together at its end, and each says when its line is there", async () => {
  const { dataDir, download } = await setUp();
  const spool = new DownloadSpool(spoolDir(dataDir), log);
  const [name] = readdirSync(spoolDir(dataDir));
  const lines = () =>
    readFileSync(path.join(spoolDir(dataDir), name!), 'utf8')
      .split('\n')
      .filter(Boolean).length;
  const entries = [1, 2, 3].map((i) => spool.append(download(i))!);
  assert.deepEqual(
    entries.map((e) => e.position),
    [1, 2, 3],
  );
  assert.equal(lines(), 0, 'nothing written before the turn ends');
  await entries[0]!.written;
  assert.equal(lines(), 3, 'all three in the one write');
  spool.append(download(4));
  spool.leave();
  assert.equal(lines(), 4, 'a spool left writes what waits');
});

test('a spool left by a process that is gone is replayed from where it was recorded up to, each download once', async () => {
  const { dataDir, store, download, recorded } = await setUp();
  const spool = new DownloadSpool(spoolDir(dataDir), log);
  for (let i = 0; i < 10; i++) spool.append(download(i));
  const [name] = readdirSync(spoolDir(dataDir));
  const { id } = parseSpoolFileName(name!)!;
  // The first four were recorded before the process died.
  await store.recordDownloads([0, 1, 2, 3].map(download), { spool: id, recorded: 4 });
  spool.leave();
  // As a process that has exited left it: its pid is gone.
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  renameSync(path.join(spoolDir(dataDir), name!), path.join(spoolDir(dataDir), spoolFileName(id, undefined, gone)));
  const own = new DownloadSpool(spoolDir(dataDir), log);
  await replayAbandonedSpools(store, dataDir, own, log);
  assert.equal(await recorded(), 10);
  assert.equal(await store.spoolRecorded(id), 0, 'forgotten once replayed');
  await replayAbandonedSpools(store, dataDir, own, log);
  assert.equal(await recorded(), 10, 'nothing is replayed twice');
  assert.equal(readdirSync(spoolDir(dataDir)).length, 1, "only the running process's own spool is left");
  own.removeAll();
});

test("a running process's spool, or another live one's on this machine, is never replayed", async () => {
  const { dataDir, store, download, recorded } = await setUp();
  const running = new DownloadSpool(spoolDir(dataDir), log);
  running.append(download(1));
  const other = new DownloadSpool(spoolDir(dataDir), log);
  await replayAbandonedSpools(store, dataDir, other, log);
  assert.equal(await recorded(), 0);
  running.removeAll();
  other.removeAll();
});
