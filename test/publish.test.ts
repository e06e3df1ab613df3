import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addUser, listFiles, runCli, runCliOk, startServe } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { requestRecords } from './helpers/log-lines.js';
import { assertReadsWholeDuringPublishes } from './helpers/read-during-publish.js';
import { dataUrl, startServer, writtenDownloads, type TestServer } from './helpers/server.js';
import { publishUrl, putBody, putChunked, readVersion, versionDb as version } from './helpers/upload.js';

interface Published {
  owner: string;
  name: string;
  description: string;
  updated_at: string;
  version: number;
  tables: { name: string; columns: { name: string; type: string }[]; rows: number }[];
}

let server: TestServer;
let aliceKey: string;
let bobKey: string;

const put = (scraper: string, body: BodyInit, headers: Record<string, string>, query = '') =>
  putBody(server.base, scraper, body, headers, query);
const current = (scraper: string) => readVersion(server.base, scraper, bobKey);

async function info(scraper: string): Promise<Published> {
  const res = await fetch(`${server.base}/${scraper}.json`);
  assert.equal(res.status, 200);
  return (await res.json()) as Published;
}

before(async () => {
  server = await startServer();
  ({ key: aliceKey } = await server.catalog.addUser('alice'));
  ({ key: bobKey } = await server.catalog.addUser('bob'));
  for (const name of ['plants', 'streamed', 'counts', 'race', 'wal']) {
    await server.catalog.addScraper(`alice/${name}`, version(1), { isPrivate: false, description: `${name} data` });
  }
  await server.catalog.addScraper('alice/hidden', version(1), { isPrivate: true, description: '' });
});
after(() => server.close());

describe('publishing replaces the data', () => {
  test('a PUT of a file larger than 1 MB with the owner key replaces the data; reads and scraper.json see it', async () => {
    const before = await info('alice/plants');
    const file = version(2, 1500);
    const res = await put('alice/plants', readFileSync(file), { 'x-api-key': aliceKey, 'content-type': 'application/vnd.sqlite3' });
    const answer = (await res.json()) as Published;
    assert.equal(res.status, 200, JSON.stringify(answer));

    const after = await info('alice/plants');
    assert.deepEqual(answer, {
      owner: 'alice',
      name: 'plants',
      description: 'plants data',
      updated_at: after.updated_at,
      version: 2,
      tables: after.tables,
    });
    assert.deepEqual(
      after.tables.map((t) => [t.name, t.rows]),
      [
        ['pad', 1500],
        ['t', 200],
      ],
    );
    assert.ok(Date.parse(after.updated_at) > Date.parse(before.updated_at), `${after.updated_at} after ${before.updated_at}`);
    assert.deepEqual(await current('alice/plants'), { n: 200, v: 2 });
    // The new version and the one it replaced (a request may still be opening it), nothing else.
    assert.equal(listFiles(path.join(server.dataDir, 'scrapers/alice/plants')).length, 2);
    // Besides the store (siphon.db, unless the store is PostgreSQL) and the downloads spool of the server.
    assert.deepEqual(
      listFiles(server.dataDir).filter(
        (f) => !f.startsWith('scrapers/') && !f.startsWith('downloads-spool/') && !f.startsWith('siphon.db'),
      ),
      [],
    );
  });

  test('a chunked body through node:http, with Authorization: Bearer and no Content-Type, publishes too', async () => {
    const answer = await putChunked(publishUrl(server.base, 'alice/streamed'), { authorization: `Bearer ${aliceKey}` }, version(3, 1200));
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as Published).version, 2);
    assert.deepEqual(await current('alice/streamed'), { n: 300, v: 3 });
  });

  test('the key parameter works; a header key wins over it', async () => {
    const viaParam = await put('alice/streamed', readFileSync(version(4)), { 'content-type': 'application/x-sqlite3' }, `?key=${aliceKey}`);
    assert.equal(viaParam.status, 200, await viaParam.text());
    const headerWins = await put('alice/streamed', readFileSync(version(5)), { 'x-api-key': bobKey }, `?key=${aliceKey}`);
    assert.equal(headerWins.status, 403, await headerWins.text());
    assert.deepEqual(await current('alice/streamed'), { n: 400, v: 4 });
  });

  test('the owner can publish to a private scraper, which stays private', async () => {
    const res = await put('alice/hidden', readFileSync(version(6)), { 'x-api-key': aliceKey, 'content-type': 'application/octet-stream' });
    assert.equal(res.status, 200, await res.text());
    const stored = (await server.store.findScraper('alice', 'hidden'))!;
    assert.deepEqual([stored.data.version, stored.isPrivate, stored.data.tables[0]!.rows], [2, true, 600]);
    assert.equal((await fetch(`${server.base}/alice/hidden.json`)).status, 404);
  });

  test('a database uploaded in WAL mode is served in rollback-journal mode, with no -wal or -shm left anywhere', async () => {
    const file = version(7);
    const wal = makeDb(
      path.dirname(file),
      'wal.sqlite',
      `pragma journal_mode = wal; create table t (v integer); insert into t values (7), (7);`,
    );
    assert.equal(readFileSync(wal)[18], 2, 'the upload is in WAL mode');
    const res = await put('alice/wal', readFileSync(wal), { 'x-api-key': aliceKey });
    assert.equal(res.status, 200, await res.text());
    assert.deepEqual(await current('alice/wal'), { n: 2, v: 7 });
    const stored = (await server.store.findScraper('alice', 'wal'))!;
    assert.equal(readFileSync(stored.data.file)[18], 1, 'served in rollback-journal mode');
    assert.deepEqual(
      listFiles(server.dataDir).filter((f) => /-(wal|shm)$/.test(f)),
      ['siphon.db-shm', 'siphon.db-wal'],
    );
  });
});

describe('a publish while others read', () => {
  test('during a stream of concurrent reads, every response is wholly one version and none fails', async () => {
    const bodies = new Map([2, 3].map((k) => [k, readFileSync(version(k))]));
    const readUrl = dataUrl(server.base, 'alice/counts', 'json', { key: bobKey, query: 'select count(*) as n, min(v) as v from t' });
    await assertReadsWholeDuringPublishes(readUrl, 1, [2, 3], async (k) => {
      const res = await put('alice/counts', bodies.get(k)!, { 'x-api-key': aliceKey });
      return res.status === 200 ? undefined : `${res.status} ${await res.text()}`;
    });
  });

  test('publishes to one scraper at the same moment all succeed, each with its own version, and the last one is served', async () => {
    const bodies = [4, 5, 6, 7].map((k) => readFileSync(version(k)));
    const answers = await Promise.all(
      bodies.map(async (body) => {
        const res = await put('alice/race', body, { 'x-api-key': aliceKey });
        assert.equal(res.status, 200);
        return (await res.json()) as Published;
      }),
    );
    assert.deepEqual(
      answers.map((a) => a.tables[0]!.rows),
      [400, 500, 600, 700],
      'each answer describes its own upload',
    );
    assert.deepEqual(answers.map((a) => a.version).sort(), [2, 3, 4, 5]);
    const last = answers.find((a) => a.version === 5)!;
    const { n, v } = await current('alice/race');
    assert.deepEqual(last.tables, [{ name: 't', columns: [{ name: 'v', type: 'INTEGER' }], rows: n }]);
    assert.equal(n, 100 * v);
    // Versions written in the last minute are kept (a concurrent publish may be about to switch to
    // one); what is there is the published versions, the served one among them.
    const files = listFiles(path.join(server.dataDir, 'scrapers/alice/race'));
    assert.ok(files.length >= 2 && files.length <= 5, files.join(', '));
    assert.ok(
      files.every((f) => /^\d+-[0-9a-f]+\.sqlite$/.test(path.basename(f))),
      files.join(', '),
    );
  });
});

test('a publish is not a download; it is logged with the scraper, account and version, never the key', async () => {
  const downloads = (await writtenDownloads(server)).length;
  const res = await put('alice/plants', readFileSync(version(8)), {}, `?key=${aliceKey}`);
  assert.equal(res.status, 200);
  const refused = await put('alice/plants', Buffer.from('not a database'), { 'x-api-key': aliceKey });
  assert.equal(refused.status, 400);
  assert.equal((await writtenDownloads(server)).length, downloads);

  const lines = requestRecords(server.logs()).filter((l) => l.method === 'PUT');
  const published = lines.filter((l) => l.status === 200 && l.scraper === 'alice/plants');
  assert.deepEqual(
    published.map((l) => [typeof l.keyId, l.version]),
    [
      ['number', 2],
      ['number', 3],
    ],
  );
  assert.ok(lines.some((l) => l.scraper === 'alice/plants' && l.code === 'SIPHON_ERR_DATA_INVALID'));
  for (const key of [aliceKey, bobKey]) assert.ok(!server.logs().includes(key), 'a key was logged');
  assert.ok(server.logs().includes('data.sqlite?key=[redacted]'));
});

describe('through bin/siphon', () => {
  test('serve --max-publish-mb sets the limit; a key made with key create --read-only cannot publish', async () => {
    const dataDir = tempDir();
    const key = await addUser(dataDir, 'carol');
    const readOnly = (await runCliOk(['key', 'create', 'carol', '--read-only'], { dataDir })).trim();
    await runCliOk(['scraper', 'add', 'carol/small', '--db', version(1)], { dataDir });
    const serve = await startServe(['--port', '0', '--max-publish-mb', '0.05'], { dataDir });
    try {
      const over = await putBody(serve.base, 'carol/small', Buffer.alloc(52_430), { 'x-api-key': key });
      assert.equal(over.status, 413);
      assert.deepEqual(await over.json(), { error: 'The database is larger than the publish limit of 52429 bytes.' });
      const small = readFileSync(version(2));
      assert.ok(small.length < 52_429);
      const denied = await putBody(serve.base, 'carol/small', small, { 'x-api-key': readOnly });
      assert.equal(denied.status, 403);
      assert.match(((await denied.json()) as { error: string }).error, /read-only/);
      const ok = await putBody(serve.base, 'carol/small', small, { 'x-api-key': key });
      assert.equal(ok.status, 200, await ok.text());
      assert.deepEqual(await readVersion(serve.base, 'carol/small', readOnly), { n: 200, v: 2 });
      assert.ok(!serve.stdout().includes(key) && !serve.stdout().includes(readOnly), 'a key was logged');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  test('serve refuses a --max-publish-mb that is not a positive number', async () => {
    for (const bad of ['0', '-5', 'lots', '']) {
      const r = await runCli(['serve', `--max-publish-mb=${bad}`], { dataDir: tempDir() });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /--max-publish-mb must be a positive number of megabytes/);
    }
  });
});
