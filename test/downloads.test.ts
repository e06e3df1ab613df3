import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { errors } from '../src/errors.js';
import { openMeta, readDownloads, runCli, runCliOk, waitFor, type DownloadRow } from './helpers/cli.js';
import { assertReadsWholeDuringPublishes } from './helpers/read-during-publish.js';
import { versionDb } from './helpers/upload.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

interface ScraperJson {
  owner: string;
  name: string;
  updated_at: string;
  tables: { name: string; columns: { name: string; type: string }[]; rows: number }[];
  downloads: { total: number; by: { owner: string; count: number }[] };
}

let server: TestServer;
let carolKey: string;
let carolKey2: string;
let daveKey: string;
const sources = tempDir();

async function info(scraper: string): Promise<ScraperJson> {
  const res = await fetch(`${server.base}/${scraper}.json`);
  assert.equal(res.status, 200);
  return (await res.json()) as ScraperJson;
}

/**
 * The download stats once `expected` downloads are in, or as they are after 5 s (for the caller's
 * assertion to show). A download is recorded just after its last byte is sent, so a client that has
 * read the body can ask a moment too soon.
 */
async function settledStats(scraper: string, expected: number): Promise<ScraperJson['downloads']> {
  let downloads = (await info(scraper)).downloads;
  await waitFor(async () => (downloads = (await info(scraper)).downloads).total >= expected, 5000).catch(() => {});
  return downloads;
}

/** The id of a key, found through the one account it belongs to (each key id differs per account). */
function keyIds(account: string): number[] {
  const db = openMeta(server.dataDir);
  try {
    return db
      .prepare('select k.id from api_keys k join accounts a on a.id = k.account_id where a.name = ? order by k.id')
      .pluck()
      .all(account) as number[];
  } finally {
    db.close();
  }
}

function accountId(name: string): number {
  const db = openMeta(server.dataDir);
  try {
    return db.prepare('select id from accounts where name = ?').pluck().get(name) as number;
  } finally {
    db.close();
  }
}

before(async () => {
  server = await startServer();
  await server.catalog.addUser('alice');
  ({ key: carolKey } = await server.catalog.addUser('carol'));
  carolKey2 = await server.catalog.createKey('carol', { readOnly: true });
  ({ key: daveKey } = await server.catalog.addUser('dave'));
  const db = makeDb(
    sources,
    'plants.sqlite',
    `create table plants (name text, height real);
    insert into plants values ('fern', 0.5), ('oak', 20), ('reed', 2);`,
  );
  await server.catalog.addScraper('alice/plants', db, { isPrivate: false, description: 'Plants' });
  await server.catalog.addScraper('alice/hidden', db, { isPrivate: true, description: '' });
});
after(() => server.close());

describe('downloads', () => {
  const started = new Date().toISOString();
  const bodies = new Map<string, number>();

  test('every call with a valid key to a public scraper is one download, whatever its outcome', async () => {
    const calls: [string, string, Record<string, string>, number][] = [
      ['carol json', 'json', { key: carolKey, query: 'select name from plants order by name' }, 200],
      ['carol csv', 'csv', { key: carolKey2, query: 'select * from plants where height > 1' }, 200],
      ['carol failed', 'json', { key: carolKey, query: 'select nope from plants' }, 400],
      ['dave sqlite', 'sqlite', { key: daveKey }, 200],
    ];
    for (const [name, format, params, status] of calls) {
      const res = await fetch(dataUrl(server.base, 'alice/plants', format, params));
      assert.equal(res.status, status, name);
      bodies.set(name, (await res.arrayBuffer()).byteLength);
    }
    const stats = await settledStats('alice/plants', 4);
    assert.deepEqual(stats, {
      total: 4,
      by: [
        { owner: 'carol', count: 3 },
        { owner: 'dave', count: 1 },
      ],
    });
  });

  test('each download records account, key, format, query, status, rows, bytes and duration', () => {
    const rows = readDownloads(server.dataDir);
    assert.equal(rows.length, 4);
    const [carolA, carolB] = keyIds('carol');
    const [daveA] = keyIds('dave');
    const expected: Partial<DownloadRow>[] = [
      {
        account_id: accountId('carol'),
        key_id: carolA,
        format: 'json',
        query: 'select name from plants order by name',
        status: 200,
        rows: 3,
        bytes: bodies.get('carol json'),
      },
      {
        account_id: accountId('carol'),
        key_id: carolB,
        format: 'csv',
        query: 'select * from plants where height > 1',
        status: 200,
        rows: 2,
        bytes: bodies.get('carol csv'),
      },
      { account_id: accountId('carol'), key_id: carolA, format: 'json', query: 'select nope from plants', status: 400, rows: null },
      // The whole file is the download: there is no query and no row count.
      {
        account_id: accountId('dave'),
        key_id: daveA,
        format: 'sqlite',
        query: null,
        status: 200,
        rows: null,
        bytes: bodies.get('dave sqlite'),
      },
    ];
    rows.forEach((row, i) => {
      const picked = Object.fromEntries(Object.keys(expected[i]!).map((k) => [k, row[k as keyof DownloadRow]]));
      assert.deepEqual(picked, expected[i], `download ${i + 1}`);
      assert.ok(row.bytes >= 0);
      assert.ok(Number.isFinite(row.duration_ms) && row.duration_ms > 0, `duration ${row.duration_ms}`);
      assert.ok(row.at >= started && row.at <= new Date().toISOString(), `at ${row.at}`);
    });
    assert.ok(bodies.get('dave sqlite')! > 0 && bodies.get('carol csv')! > 0);
  });

  test('calls without a valid key, or to an unknown or private scraper, are not downloads', async () => {
    const refused: [string, Record<string, string>, number][] = [
      ['alice/plants', { query: 'select 1' }, 401],
      ['alice/plants', { key: `${carolKey}x`, query: 'select 1' }, 401],
      ['alice/plants', { key: '', query: 'select 1' }, 401],
      ['alice/nothing', { key: carolKey, query: 'select 1' }, 404],
      ['nobody/plants', { key: carolKey, query: 'select 1' }, 404],
      ['alice/hidden', { key: carolKey, query: 'select 1' }, 404],
    ];
    for (const [scraper, params, status] of refused) {
      const res = await fetch(dataUrl(server.base, scraper, 'json', params));
      assert.equal(res.status, status, `${scraper} ${JSON.stringify(params)}`);
      await res.arrayBuffer();
    }
    // Then one counted call: a refused call wrongly counted would be recorded before it, so once it is in, all are.
    const counted = await fetch(dataUrl(server.base, 'alice/plants', 'json', { key: carolKey, query: 'select 2' }));
    assert.equal(counted.status, 200);
    await counted.arrayBuffer();
    assert.equal((await settledStats('alice/plants', 5)).total, 5);
    const rows = readDownloads(server.dataDir);
    assert.equal(rows.length, 5);
    assert.equal(rows.at(-1)!.query, 'select 2');
  });

  test('scraper.json of a private or unknown scraper is 404', async () => {
    for (const path of ['alice/hidden.json', 'alice/nothing.json', 'nobody/plants.json']) {
      const res = await fetch(`${server.base}/${path}`);
      assert.equal(res.status, 404, path);
      assert.match(((await res.json()) as { error: string }).error, /can't find scraper/);
    }
  });
});

test('a key revoked with the CLI while the server runs is refused from the next request; the other key still works', async () => {
  const spare = await server.catalog.createKey('dave');
  const url = (key: string) => dataUrl(server.base, 'alice/plants', 'json', { key, query: 'select count(*) as n from plants' });
  assert.equal((await fetch(url(spare))).status, 200);
  assert.equal(await runCliOk(['key', 'revoke', spare], { dataDir: server.dataDir }), 'revoked\n');
  // Right after the CLI exits, though the server had looked the key up (and kept it) a moment before.
  const res = await fetch(url(spare));
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { error: errors.keyRevoked().message });
  const other = await fetch(url(daveKey));
  assert.equal(other.status, 200);
  assert.deepEqual(await other.json(), [{ n: 3 }]);
});

describe('publishing through the CLI while the server runs', () => {
  const scraper = 'alice/counts';
  const version = (k: number) => versionDb(k);
  const countUrl = () => dataUrl(server.base, scraper, 'json', { key: carolKey, query: 'select count(*) as n, min(v) as v from t' });

  before(async () => {
    await server.catalog.addScraper(scraper, version(1), { isPrivate: false, description: '' });
  });

  test('the next request sees the new data and scraper.json shows the new tables and a later updated_at', async () => {
    const before = await info(scraper);
    assert.deepEqual(
      before.tables.map((t) => [t.name, t.rows]),
      [['t', 100]],
    );
    assert.deepEqual(await (await fetch(countUrl())).json(), [{ n: 100, v: 1 }]);
    const newData = makeDb(
      tempDir(),
      'birds.sqlite',
      `create table t (v integer); insert into t values (7);
      create table birds (name text, seen integer); insert into birds values ('wren', 3), ('kite', 1);`,
    );
    await runCliOk(['scraper', 'publish', scraper, '--db', newData], { dataDir: server.dataDir });

    assert.deepEqual(await (await fetch(countUrl())).json(), [{ n: 1, v: 7 }]);
    const after = await info(scraper);
    assert.deepEqual(after.tables, [
      {
        name: 'birds',
        columns: [
          { name: 'name', type: 'TEXT' },
          { name: 'seen', type: 'INTEGER' },
        ],
        rows: 2,
      },
      { name: 't', columns: [{ name: 'v', type: 'INTEGER' }], rows: 1 },
    ]);
    assert.ok(Date.parse(after.updated_at) > Date.parse(before.updated_at), `${after.updated_at} after ${before.updated_at}`);
  });

  test('during a stream of concurrent reads, every response is wholly one version and none fails', async () => {
    await runCliOk(['scraper', 'publish', scraper, '--db', version(1)], { dataDir: server.dataDir });
    await assertReadsWholeDuringPublishes(countUrl(), 1, [2, 3], async (k) => {
      const r = await runCli(['scraper', 'publish', scraper, '--db', version(k)], { dataDir: server.dataDir });
      return r.code === 0 ? undefined : r.stderr;
    });
  });
});
