import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sweepVersions } from '../src/scrapers/version-sweeper.js';
import { listFiles, waitFor } from './helpers/cli.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';
import { putBody, readVersion, versionDb } from './helpers/upload.js';

let server: TestServer;
let key: string;

before(async () => {
  // One query process, so a second query waits in the queue while the first runs; time enough for
  // the first, a count to 30 million, on a loaded machine, and for the second to wait that long. The
  // test takes 9 s alone on a 2-core machine, 23 s beside three other files, and 50–62 s in CI's
  // PostgreSQL pass, where a 60 s limit once stopped the count.
  server = await startServer({ queryProcesses: 1, queryTimeoutMs: 180_000, queueTimeoutMs: 240_000 });
  ({ key } = await server.catalog.addUser('alice'));
  await server.catalog.addScraper('alice/busy', versionDb(1), { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/race', versionDb(1), { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/aging', versionDb(1), { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/few', versionDb(1), { isPrivate: false, description: '' });
});
after(() => server.close());

test('a request that looked up its data, then waited in the queue through two publishes, reads the data it looked up', async () => {
  // The data was published long ago, as on a real server.
  const old = (await server.store.findScraper('alice', 'race'))!.data.file;
  const longAgo = new Date(Date.now() - 3600_000);
  utimesSync(old, longAgo, longAgo);

  const slow = fetch(
    dataUrl(server.base, 'alice/busy', 'json', {
      key,
      query: 'with recursive c(x) as (select 1 union all select x+1 from c limit 30000000) select count(*) as n from c',
    }),
  );
  // Running in the one query process…
  await waitFor(() => server.pool.stats().busy === 1, 5000);
  let answeredAt = Infinity;
  const queued = fetch(dataUrl(server.base, 'alice/race', 'json', { key, query: 'select count(*) as n, min(v) as v from t' })).then(
    async (res) => {
      answeredAt = performance.now();
      return { status: res.status, body: await res.text() };
    },
  );
  // …and this one waiting for it, its data looked up.
  await waitFor(() => server.pool.stats().waiting === 1, 5000);

  for (const k of [2, 3]) {
    const res = await putBody(server.base, 'alice/race', readFileSync(versionDb(k)), { 'x-api-key': key });
    assert.equal(res.status, 200, await res.text());
  }
  const publishedAt = performance.now();
  const answer = await queued;
  assert.equal((await slow).status, 200);
  assert.ok(answeredAt > publishedAt, 'the request was still waiting when both publishes were done');
  assert.equal(answer.status, 200, answer.body);
  assert.deepEqual(JSON.parse(answer.body), [{ n: 100, v: 1 }]);
  assert.deepEqual(await readVersion(server.base, 'alice/race', key), { n: 300, v: 3 });
});

/** The version files of a scraper, by name. */
const versionsOf = (scraper: string) => listFiles(path.join(server.dataDir, 'scrapers', scraper));
const currentFile = async (name: string) => path.basename((await server.store.findScraper('alice', name))!.data.file);
const minutesOn = (minutes: number) => Date.now() + minutes * 60_000;
const sweep = (minutes: number) => sweepVersions(server.store, server.dataDir, server.config, minutesOn(minutes));

async function publish(scraper: string, k: number): Promise<void> {
  const res = await putBody(server.base, `alice/${scraper}`, readFileSync(versionDb(k)), { 'x-api-key': key });
  assert.equal(res.status, 200, await res.text());
}

/** The ids of the scraper's kept versions, newest first. */
async function keptVersions(scraper: string): Promise<number[]> {
  const { id } = (await server.store.findScraper('alice', scraper))!;
  return (await server.store.listVersions(id)).map((v) => v.version);
}

test('by default the last 5 versions are kept; one past the retention is retired at the publish, its file removed 10 minutes later', async () => {
  for (const k of [2, 3, 4, 5, 6]) await publish('aging', k);
  assert.deepEqual(await keptVersions('aging'), [6, 5, 4, 3, 2]);
  assert.equal(versionsOf('alice/aging').length, 6);

  // Nine minutes on, nothing may go yet; eleven minutes on, only the file of version 1, retired at the last publish.
  await sweep(9);
  assert.equal(versionsOf('alice/aging').length, 6);
  await sweep(11);
  assert.equal(versionsOf('alice/aging').length, 5);
  const { id } = (await server.store.findScraper('alice', 'aging'))!;
  assert.deepEqual(await server.store.retiredVersions(id), [], 'forgotten once its file is gone');
  assert.deepEqual(await readVersion(server.base, 'alice/aging', key), { n: 600, v: 6 });
});

test('a scraper keeping fewer versions than the default retires the rest at the next sweep; a version just imported and not switched to stays', async () => {
  await server.catalog.keepVersions('alice/few', { versions: 2 });
  for (const k of [2, 3]) await publish('few', k);
  assert.deepEqual(await keptVersions('few'), [3, 2]);
  await server.catalog.keepVersions('alice/few', { versions: 1 });
  const three = await currentFile('few');
  await sweep(0);
  assert.deepEqual(await keptVersions('few'), [3]);
  assert.equal(versionsOf('alice/few').length, 3, 'retired files stay 10 minutes');
  // Written by an import eleven minutes on, just before that sweep.
  const pending = `${Date.now()}-0123abcd.sqlite`;
  const file = path.join(server.dataDir, 'scrapers/alice/few', pending);
  writeFileSync(file, readFileSync(versionDb(9)));
  utimesSync(file, new Date(minutesOn(11)), new Date(minutesOn(11)));
  await sweep(11);
  assert.deepEqual(versionsOf('alice/few'), [three, pending].sort());
});

test("an owner's choice of retention is bounded by the operator's maximum; default goes back to the operator's", async () => {
  for (const choice of [
    { versions: 0 },
    { versions: server.config.maxKeepVersions + 1 },
    { days: -1 },
    { days: 3651 },
    { versions: 2.5 },
  ]) {
    await assert.rejects(server.catalog.keepVersions('alice/few', choice), { code: 'SIPHON_ERR_KEEP_INVALID' }, JSON.stringify(choice));
  }
  const most = await server.catalog.keepVersions('alice/few', { versions: server.config.maxKeepVersions, days: 30 });
  assert.deepEqual(server.catalog.retentionOf(most), { versions: server.config.maxKeepVersions, days: 30 });
  const back = await server.catalog.keepVersions('alice/few', { versions: null, days: null });
  assert.deepEqual(server.catalog.retentionOf(back), { versions: 5, days: 0 });
});
