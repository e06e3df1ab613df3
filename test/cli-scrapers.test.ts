/**
 * The operator's commands through the real bin/siphon, and what a running server makes of them over
 * HTTP: user list, scraper list, scraper set (description, private, public), scraper remove (404 from
 * the next request, a stream under way finishes, its files go when old versions do, its downloads stay
 * counted), downloads prune (the records go, every count shown stays).
 */
import assert from 'node:assert/strict';
import { utimesSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defaults } from '../src/config.js';
import { sweepVersions } from '../src/scrapers/version-sweeper.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import {
  addUser,
  listFiles,
  openMeta,
  readDownloads,
  runCli,
  runCliOk,
  startServe,
  waitFor,
  type CliResult,
  type ServeProcess,
} from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { asBeforeKeyDetails } from './helpers/old-meta.js';
import { dataUrl } from './helpers/server.js';

function assertRefused(r: CliResult, message: RegExp): void {
  assert.equal(r.code, 1, `exit status; stderr: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '');
}

/** A list the CLI printed, read back by its header's columns (cells may hold spaces). */
function readColumns(text: string): Record<string, string>[] {
  const [header, ...lines] = text.trimEnd().split('\n');
  const names = header!.split(/ {2,}/);
  const starts = names.map((name) => header!.indexOf(name));
  return lines.map((line) => Object.fromEntries(names.map((name, i) => [name, line.slice(starts[i], starts[i + 1]).trim()])));
}

const isoSecond = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const sourceDir = tempDir();
const small = makeDb(sourceDir, 'small.sqlite', 'create table t (x integer); insert into t values (1), (2), (3);');
const twoTables = makeDb(sourceDir, 'two.sqlite', "create table a (x); create table b (y); insert into b values ('one'), ('two');");

const dataDir = tempDir();
let server: ServeProcess;
const keys: Record<string, string> = {};

before(async () => {
  keys.alice = await addUser(dataDir, 'alice');
  keys.bob = await addUser(dataDir, 'bob');
  await runCliOk(['user', 'add', 'carol'], { dataDir });
  await runCliOk(['key', 'create', 'alice'], { dataDir });
  await runCliOk(['key', 'revoke', (await runCliOk(['key', 'create', 'alice'], { dataDir })).trim()], { dataDir });
  await runCliOk(['scraper', 'add', 'alice/things', '--db', small, '--description', 'Some things'], { dataDir });
  await runCliOk(['scraper', 'add', 'alice/secret', '--db', small, '--private'], { dataDir });
  await runCliOk(['scraper', 'add', 'bob/tables', '--db', twoTables], { dataDir });
  server = await startServe(['--port', '0', '--rate-limit', '0'], { dataDir });
});
after(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

const query = (scraper: string, key: string, sql = 'select count(*) as n from t') =>
  fetch(dataUrl(server.base, scraper, 'json', { key, query: sql }));

/** Waits until the server has written `n` downloads in all (it writes them in batches, a moment after each call). */
const downloadsWritten = (n: number) => waitFor(() => readDownloads(dataDir).length >= n, 10_000);

/** What the scraper's page and information say of its downloads. */
async function shownCounts(scraper: string): Promise<{ info: unknown; page: string[] }> {
  const info = ((await (await fetch(`${server.base}/${scraper}.json`)).json()) as { downloads: unknown }).downloads;
  const html = await (await fetch(`${server.base}/${scraper}`)).text();
  // The total, each account's count, and the chart's table of days.
  const page = [
    ...html.matchAll(/data-downloads="\d+"|class="count"[^>]*>[^<]*|<tr><td>[^<]*<\/td><td class="num">[^<]*<\/td><\/tr>/g),
  ].map((m) => m[0]);
  return { info, page };
}

describe('user list and scraper list', () => {
  test('user list: every account by name, created, keys that work, revoked keys, scrapers', async () => {
    const users = readColumns(await runCliOk(['user', 'list'], { dataDir }));
    assert.deepEqual(
      users.map(({ CREATED, ...rest }) => rest),
      [
        { NAME: 'alice', KEYS: '2', 'REVOKED KEYS': '1', SCRAPERS: '2' },
        { NAME: 'bob', KEYS: '1', 'REVOKED KEYS': '0', SCRAPERS: '1' },
        { NAME: 'carol', KEYS: '1', 'REVOKED KEYS': '0', SCRAPERS: '0' },
      ],
    );
    for (const u of users) assert.match(u.CREATED!, isoSecond);
    const text = await runCliOk(['user', 'list'], { dataDir });
    for (const key of Object.values(keys)) assert.ok(!text.includes(key.slice(0, 11)), 'no key');
  });

  test('scraper list: every scraper, private ones marked, with version, size, updated, downloads and tables; OWNER keeps theirs', async () => {
    assert.equal((await query('alice/things', keys.bob!)).status, 200);
    await downloadsWritten(1);
    const all = readColumns(await runCliOk(['scraper', 'list'], { dataDir }));
    assert.deepEqual(
      all.map(({ UPDATED, SIZE, ...rest }) => rest),
      [
        { SCRAPER: 'alice/secret', VISIBILITY: 'private', VERSION: '1', DOWNLOADS: '0', TABLES: 't (3 rows)' },
        { SCRAPER: 'alice/things', VISIBILITY: 'public', VERSION: '1', DOWNLOADS: '1', TABLES: 't (3 rows)' },
        { SCRAPER: 'bob/tables', VISIBILITY: 'public', VERSION: '1', DOWNLOADS: '0', TABLES: 'a (0 rows), b (2 rows)' },
      ],
    );
    for (const s of all) {
      assert.match(s.UPDATED!, isoSecond);
      assert.match(s.SIZE!, /^\d+\.\d (KB|MB)$/);
    }
    assert.deepEqual(
      readColumns(await runCliOk(['scraper', 'list', 'BOB'], { dataDir })).map((s) => s.SCRAPER),
      ['bob/tables'],
    );
    assert.deepEqual(readColumns(await runCliOk(['scraper', 'list', 'carol'], { dataDir })), []);
    assertRefused(await runCli(['scraper', 'list', 'nobody'], { dataDir }), /^siphon: There is no account named nobody\.\n$/);
  });
});

describe('scraper set', () => {
  test('--description shows at once in the scraper information', async () => {
    assert.equal(
      await runCliOk(['scraper', 'set', 'alice/things', '--description', 'Other things'], { dataDir }),
      'updated alice/things (public): "Other things"\n',
    );
    assert.equal(((await (await fetch(`${server.base}/alice/things.json`)).json()) as { description: string }).description, 'Other things');
  });

  test("--private makes it 404 everywhere but to its owner's keys from the next request; --public brings it back", async () => {
    assert.equal((await query('alice/things', keys.bob!)).status, 200);
    assert.equal(
      await runCliOk(['scraper', 'set', 'alice/things', '--private'], { dataDir }),
      'updated alice/things (private): "Other things"\n',
    );
    assert.equal((await query('alice/things', keys.alice!)).status, 200, 'its owner still reads it');
    const refused = await query('alice/things', keys.bob!);
    assert.equal(refused.status, 404);
    assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
    assert.equal((await fetch(`${server.base}/alice/things.json`)).status, 404);
    assert.equal((await fetch(`${server.base}/alice/things`)).status, 404);
    assert.doesNotMatch(await (await fetch(`${server.base}/alice`)).text(), /things/, "not listed on its owner's page");
    assert.equal(readColumns(await runCliOk(['scraper', 'list', 'alice'], { dataDir }))[1]!.VISIBILITY, 'private');

    await runCliOk(['scraper', 'set', 'alice/things', '--public'], { dataDir });
    const back = await query('alice/things', keys.bob!);
    assert.equal(back.status, 200);
    assert.deepEqual(await back.json(), [{ n: 3 }]);
  });

  test('an unknown or removed scraper, or a bad name, is refused', async () => {
    assertRefused(await runCli(['scraper', 'set', 'alice/nope', '--public'], { dataDir }), /^siphon: can't find scraper alice\/nope\n$/);
    assertRefused(await runCli(['scraper', 'set', 'nobody/x', '--public'], { dataDir }), /There is no account named nobody/);
    assertRefused(await runCli(['scraper', 'set', 'alice/x.json', '--public'], { dataDir }), /"x\.json" is not a valid scraper name/);
  });
});

describe('scraper remove', () => {
  test('404 from the next request; a response already streaming finishes; its files go when old versions do; the name is free again', async () => {
    await runCliOk(['scraper', 'add', 'alice/going', '--db', small], { dataDir });
    const folder = path.join(dataDir, 'scrapers', 'alice', 'going');
    const files = listFiles(folder);
    assert.equal(files.length, 1);
    assert.equal((await query('alice/going', keys.bob!)).status, 200);

    // An export of 300,000 rows, under way when the scraper is removed.
    const rows = 300_000;
    const streaming = await fetch(
      dataUrl(server.base, 'alice/going', 'ndjson', {
        key: keys.bob!,
        query: `with recursive c(i) as (select 1 union all select i + 1 from c where i < ${rows}) select i, x from c, (select max(x) as x from t)`,
      }),
    );
    assert.equal(streaming.status, 200);
    const reader = streaming.body!.getReader();
    const first = await reader.read();
    assert.ok(!first.done);

    assert.equal(await runCliOk(['scraper', 'remove', 'alice/going'], { dataDir }), 'removed alice/going\n');
    const gone = await query('alice/going', keys.bob!);
    assert.equal(gone.status, 404);
    assert.equal(gone.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
    assert.equal((await fetch(`${server.base}/alice/going.json`)).status, 404);
    assert.equal((await fetch(`${server.base}/alice/going`)).status, 404);

    let text = Buffer.from(first.value!).toString();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += Buffer.from(chunk.value).toString();
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, rows, 'every row of the export under way arrived');
    assert.deepEqual(JSON.parse(lines.at(-1)!), { i: rows, x: 3 });

    assert.ok(!readColumns(await runCliOk(['scraper', 'list'], { dataDir })).some((s) => s.SCRAPER === 'alice/going'), 'not listed');
    assertRefused(await runCli(['scraper', 'remove', 'alice/going'], { dataDir }), /can't find scraper alice\/going/);
    assertRefused(await runCli(['scraper', 'publish', 'alice/going', '--db', small], { dataDir }), /can't find scraper alice\/going/);

    // Its file stays for requests that looked it up just before, as a replaced version does, and is
    // swept (as a running server does every minute) once it has not been looked up for 10 minutes.
    assert.deepEqual(listFiles(folder), files);
    const store = openSqliteStore(path.join(dataDir, 'siphon.db'));
    try {
      await sweepVersions(store, dataDir, defaults);
      assert.deepEqual(listFiles(folder), files, 'kept 10 minutes');
      const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
      utimesSync(path.join(folder, files[0]!), elevenMinutesAgo, elevenMinutesAgo);
      await sweepVersions(store, dataDir, defaults);
      assert.deepEqual(listFiles(folder), []);
    } finally {
      await store.close();
    }

    // The name is free; the new scraper starts from no downloads.
    await runCliOk(['scraper', 'add', 'alice/going', '--db', twoTables], { dataDir });
    assert.equal((await query('alice/going', keys.bob!, 'select count(*) as n from b')).status, 200);
    const info = (await (await fetch(`${server.base}/alice/going.json`)).json()) as {
      tables: { name: string }[];
      downloads: { total: number };
    };
    assert.deepEqual(
      info.tables.map((t) => t.name),
      ['a', 'b'],
    );
    await waitFor(
      async () =>
        ((await (await fetch(`${server.base}/alice/going.json`)).json()) as { downloads: { total: number } }).downloads.total === 1,
      10_000,
    );
  });

  test("the removed scraper's downloads stay recorded and counted in the totals", async () => {
    // The export's download is written a moment after it ended.
    await waitFor(() => readDownloads(dataDir).filter((d) => d.format === 'ndjson').length === 1, 10_000);
    const db = openMeta(dataDir);
    try {
      const removed = db.prepare("select id from scrapers where name = 'going' and removed_at is not null").pluck().all() as number[];
      assert.equal(removed.length, 1);
      const counted = db.prepare('select sum(count) from download_totals where scraper_id = ?').pluck().get(removed[0]) as number;
      const recorded = db.prepare('select count(*) from downloads where scraper_id = ?').pluck().get(removed[0]) as number;
      assert.equal(counted, 2, 'the two calls before the removal, the export included');
      assert.equal(recorded, 2);
      assert.equal(db.prepare('select sum(count) from download_days where scraper_id = ?').pluck().get(removed[0]), 2);
    } finally {
      db.close();
    }
  });
});

describe('downloads prune', () => {
  test('deletes the records before the day; the pages and information show the same counts', async () => {
    const earlier = readDownloads(dataDir).length;
    for (let i = 0; i < 3; i++) assert.equal((await query('bob/tables', keys.alice!, 'select count(*) as n from b')).status, 200);
    assert.equal((await query('bob/tables', keys.bob!, 'select count(*) as n from b')).status, 200);
    await downloadsWritten(earlier + 4);
    const total = readDownloads(dataDir).length;
    const before = await shownCounts('bob/tables');
    assert.deepEqual(before.info, {
      total: 4,
      by: [
        { owner: 'alice', count: 3 },
        { owner: 'bob', count: 1 },
      ],
    });
    assert.equal(before.page.length, 4, `the total, two accounts and today in the chart: ${before.page.join(' ')}`);

    assert.equal(
      await runCliOk(['downloads', 'prune', '--before', '2000-01-01'], { dataDir }),
      'pruned 0 downloads recorded before 2000-01-01\n',
    );
    assert.equal(readDownloads(dataDir).length, total);

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const recorded = readDownloads(dataDir).length;
    assert.equal(
      await runCliOk(['downloads', 'prune', '--before', tomorrow], { dataDir }),
      `pruned ${recorded} downloads recorded before ${tomorrow}\n`,
    );
    assert.deepEqual(readDownloads(dataDir), []);
    assert.deepEqual(await shownCounts('bob/tables'), before, 'the same totals, per account and per day');
    assert.equal(readColumns(await runCliOk(['scraper', 'list', 'bob'], { dataDir }))[0]!.DOWNLOADS, '4');

    // Downloads made after the prune are recorded and counted on top.
    assert.equal((await query('bob/tables', keys.bob!, 'select 1')).status, 200);
    await downloadsWritten(1);
    await waitFor(async () => ((await shownCounts('bob/tables')).info as { total: number }).total === 5, 10_000);
  });
});

test('a data folder from before removals is migrated: its scrapers, ids and counts kept, and a removed name is free again', async () => {
  const oldDir = tempDir();
  const key = await addUser(oldDir, 'dave');
  await runCliOk(['scraper', 'add', 'dave/kept', '--db', small], { dataDir: oldDir });
  const serve = await startServe(['--port', '0'], { dataDir: oldDir });
  try {
    assert.equal((await fetch(dataUrl(serve.base, 'dave/kept', 'json', { key, query: 'select 1' }))).status, 200);
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  asBeforeKeyDetails(oldDir);
  const listed = readColumns(await runCliOk(['scraper', 'list'], { dataDir: oldDir }));
  assert.deepEqual(
    listed.map((s) => [s.SCRAPER, s.DOWNLOADS]),
    [['dave/kept', '1']],
  );
  await runCliOk(['scraper', 'remove', 'dave/kept'], { dataDir: oldDir });
  await runCliOk(['scraper', 'add', 'dave/kept', '--db', twoTables], { dataDir: oldDir });
  assert.deepEqual(
    readColumns(await runCliOk(['scraper', 'list'], { dataDir: oldDir })).map((s) => [s.SCRAPER, s.DOWNLOADS, s.TABLES]),
    [['dave/kept', '0', 'a (0 rows), b (2 rows)']],
  );
  const db = openMeta(oldDir);
  try {
    assert.equal(db.pragma('user_version', { simple: true }), 8);
    assert.deepEqual(db.prepare('select id, removed_at is not null as removed from scrapers order by id').all(), [
      { id: 1, removed: 1 },
      { id: 2, removed: 0 },
    ]);
    assert.equal(db.prepare('select sum(count) from download_totals where scraper_id = 1').pluck().get(), 1);
  } finally {
    db.close();
  }
});

test("scraper keep sets a scraper's retention within the operator's bounds, read from the environment as serve reads them; publish retires what it no longer keeps", async () => {
  const dir = tempDir();
  await addUser(dir, 'erin');
  await runCliOk(['scraper', 'add', 'erin/kept', '--db', small], { dataDir: dir });
  assert.equal(await runCliOk(['scraper', 'keep', 'erin/kept'], { dataDir: dir }), 'erin/kept keeps 5 versions (the default)\n');
  assert.equal(
    await runCliOk(['scraper', 'keep', 'erin/kept', '--versions', '2', '--days', '30'], { dataDir: dir }),
    'erin/kept keeps 2 versions, none older than 30 days\n',
  );
  assertRefused(await runCli(['scraper', 'keep', 'erin/kept', '--versions', '21'], { dataDir: dir }), /Keep from 1 to 20 versions/);
  assertRefused(
    await runCli(['scraper', 'keep', 'erin/kept', '--versions', '21'], { dataDir: dir, env: { SIPHON_MAX_KEEP_VERSIONS: '10' } }),
    /Keep from 1 to 10 versions/,
  );
  assertRefused(
    await runCli(['scraper', 'keep', 'erin/kept', '--days', 'soon'], { dataDir: dir }),
    /--days must be a whole number or default/,
  );
  for (let i = 0; i < 2; i++) await runCliOk(['scraper', 'publish', 'erin/kept', '--db', small], { dataDir: dir });
  const store = openSqliteStore(path.join(dir, 'siphon.db'));
  try {
    const { id } = (await store.findScraper('erin', 'kept'))!;
    assert.deepEqual(
      (await store.listVersions(id)).map((v) => v.version),
      [3, 2],
    );
  } finally {
    await store.close();
  }
  assert.equal(
    await runCliOk(['scraper', 'keep', 'erin/kept', '--versions', 'default', '--days', 'default'], { dataDir: dir }),
    'erin/kept keeps 5 versions (the default)\n',
  );
});
