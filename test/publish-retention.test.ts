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

/** Makes every version file of the scraper look `minutes` older: written, and made current, that long ago. */
function age(scraper: string, minutes: number): void {
  for (const name of versionsOf(scraper)) {
    const file = path.join(server.dataDir, 'scrapers', scraper, name);
    const then = new Date(Date.now() - minutes * 60_000);
    utimesSync(file, then, then);
  }
}

async function publish(k: number): Promise<void> {
  const res = await putBody(server.base, 'alice/aging', readFileSync(versionDb(k)), { 'x-api-key': key });
  assert.equal(res.status, 200, await res.text());
}

test('replaced versions stay 10 minutes after the switch that replaced them, then go at the next sweep or publish', async () => {
  await publish(2);
  await publish(3);
  const three = await currentFile('aging');
  assert.equal(versionsOf('alice/aging').length, 3);

  // Nine minutes on, nothing may go yet; the sweep keeps all.
  age('alice/aging', 9);
  await sweepVersions(server.store, server.dataDir);
  assert.equal(versionsOf('alice/aging').length, 3);

  // Eleven minutes after the last switch: only the current version is left.
  age('alice/aging', 11);
  await sweepVersions(server.store, server.dataDir);
  assert.deepEqual(versionsOf('alice/aging'), [three]);

  // A version just written by an import that has not switched to it yet stays, however old the current one.
  const pending = `${Date.now()}-0123abcd.sqlite`;
  writeFileSync(path.join(server.dataDir, 'scrapers/alice/aging', pending), readFileSync(versionDb(9)));
  await sweepVersions(server.store, server.dataDir);
  assert.deepEqual(versionsOf('alice/aging'), [three, pending].sort());

  // A publish removes what is due before it switches: the version it replaces stays.
  await publish(4);
  const four = await currentFile('aging');
  age('alice/aging', 11);
  await publish(5);
  assert.deepEqual(versionsOf('alice/aging'), [four, await currentFile('aging')].sort());
  assert.deepEqual(await readVersion(server.base, 'alice/aging', key), { n: 500, v: 5 });
});
