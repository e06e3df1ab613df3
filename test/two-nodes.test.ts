/**
 * Two Siphon nodes, each a `bin/siphon serve` process of its own on loopback, on one PostgreSQL
 * database (made for this file, dropped after) and one data folder, as docs/scaling.md deploys them
 * behind a load balancer: what one node or command does, the other sees.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { WebClient } from './helpers/web-client.js';
import { runCli, runCliOk, startServe, waitFor, type ServeProcess } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { createTestDatabase, postgresSkip, type TestDatabase } from './helpers/pg-database.js';
import { dataUrl } from './helpers/server.js';
import { putBody, readVersion, versionDb } from './helpers/upload.js';

const dataDir = tempDir();
const rateLimit = 200;
let database: TestDatabase;
let db: pg.Client;
let a: ServeProcess;
let b: ServeProcess;
const nodes: ServeProcess[] = [];

async function startNode(): Promise<ServeProcess> {
  const node = await startServe(['--port', '0'], {
    dataDir,
    env: { SIPHON_DATABASE_URL: database.url, SIPHON_RATE_LIMIT: String(rateLimit) },
  });
  nodes.push(node);
  return node;
}

/** The CLI on the shared store, as an operator on any machine runs it. */
const cli = (args: string[]) => runCliOk([...args, '--database-url', database.url], { dataDir });

async function stop(node: ServeProcess, signal: NodeJS.Signals): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill(signal);
  await node.exited;
}

/** Why the tests that need PostgreSQL are skipped (it does not answer), if they are. */
const skip = await postgresSkip();

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  db = new pg.Client({ connectionString: database.url });
  [a, b] = [await startNode(), await startNode()];
  await db.connect();
  await cli(['user', 'add', 'owner']);
  await cli(['scraper', 'add', 'owner/plants', '--db', versionDb(1)]);
});

after(async () => {
  if (skip) return;
  for (const node of nodes) await stop(node, 'SIGTERM');
  await db.end();
  await database.drop();
});

const get = (node: ServeProcess, key: string, query = 'select count(*) as n from t') =>
  fetch(dataUrl(node.base, 'owner/plants', 'json', { key, query }));
const downloadsShown = async (node: ServeProcess) =>
  ((await (await fetch(`${node.base}/owner/plants.json`)).json()) as { downloads: { total: number } }).downloads.total;

describe('two nodes on one PostgreSQL database', { skip }, () => {
  let web: WebClient;
  let key: string;

  test('a key made on one node works on the other, and so does the session that made it', async () => {
    web = new WebClient(a.base);
    const password = 'a good long password';
    const signup = await web.post('/signup', { _csrf: await web.token('/signup'), name: 'alice', password, password2: password });
    assert.equal(signup.status, 303, await signup.text());
    const made = await web.post('/account/keys', { _csrf: await web.token('/account'), label: 'for b' });
    assert.equal(made.status, 201);
    key = /sph_[A-Za-z0-9_-]{32}/.exec(await made.text())?.[0] ?? '';
    assert.ok(key, 'the new key is on the page');
    assert.equal((await get(b, key)).status, 200);
    const onB = new WebClient(b.base);
    for (const [name, value] of web.cookies) onB.cookies.set(name, value);
    const page = await onB.get('/account');
    assert.equal(page.status, 200, 'signed in on b with the cookie a set');
    assert.match(await page.text(), /for b/);
  });

  test('downloads through both nodes add up on both scraper pages', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await get(a, key)).status, 200);
    for (let i = 0; i < 7; i++) assert.equal((await get(b, key)).status, 200);
    // The one download of the test before, then these twelve.
    const expected = 1 + 12;
    await waitFor(async () => (await downloadsShown(a)) === expected && (await downloadsShown(b)) === expected, 5000).catch(async () =>
      assert.fail(`a shows ${await downloadsShown(a)}, b ${await downloadsShown(b)}, not ${expected}`),
    );
  });

  test('data published through one node is served by the other within a second', async () => {
    const owner = (await cli(['key', 'create', 'owner'])).trim();
    const res = await putBody(a.base, 'owner/plants', readFileSync(versionDb(2)), { 'x-api-key': owner });
    assert.equal(res.status, 200, await res.text());
    await waitFor(async () => (await readVersion(b.base, 'owner/plants', key)).v === 2, 1000);
  });

  test('the rate limit holds across both nodes: a key gets its requests per minute in all', async () => {
    const limited = (await cli(['key', 'create', 'owner'])).trim();
    const statuses: number[] = [];
    for (let i = 0; i < rateLimit; i++) statuses.push((await get(i % 2 === 0 ? a : b, limited, 'select 1')).status);
    assert.deepEqual(new Set(statuses), new Set([200]), 'each node alone would allow them all, and so do both');
    const [overA, overB] = [await get(a, limited, 'select 1'), await get(b, limited, 'select 1')];
    assert.deepEqual([overA.status, overB.status], [429, 429]);
  });

  test('a key revoked on one node is refused by the other within a second', async () => {
    const page = await (await web.get('/account')).text();
    const id = /name="id" value="(\d+)"/.exec(page)?.[1];
    assert.ok(id);
    const revoked = await web.post('/account/keys/revoke', { _csrf: await web.token('/account'), id });
    assert.equal(revoked.status, 303);
    await waitFor(async () => (await get(b, key)).status === 401, 1000);
    assert.equal((await get(b, key)).headers.get('siphon-error-code'), 'SIPHON_ERR_KEY_REVOKED');
  });
});

test('a command whose PostgreSQL cannot be reached says so in one line, without the password', async () => {
  const r = await runCli(['user', 'list', '--database-url', 'postgres://siphon:hunter2secret@127.0.0.1:1/siphon'], { dataDir });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'siphon: PostgreSQL: connect ECONNREFUSED 127.0.0.1:1\n');
});

describe('stopping a node under load loses no download it answered', { skip }, () => {
  /** Keeps 4 clients querying `node` until it stops answering; resolves with how many 200s were read whole. */
  function load(node: ServeProcess, key: string): Promise<number> {
    let answered = 0;
    const client = async () => {
      for (;;) {
        try {
          const res = await get(node, key, 'select * from t limit 20');
          await res.arrayBuffer();
          if (res.status === 200) answered++;
        } catch {
          return;
        }
      }
    };
    return Promise.all([client(), client(), client(), client()]).then(() => answered);
  }
  const recorded = async (key: string) => {
    const { rows } = await db.query<{ n: string }>(
      `select count(*) as n from downloads d join api_keys k on k.id = d.key_id
      where k.prefix = $1 and d.status = 200`,
      [key.slice(0, 10)],
    );
    return Number(rows[0]!.n);
  };

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`${signal}: every download answered is recorded${signal === 'SIGKILL' ? ', by the node started next, from the spool' : ''}`, async () => {
      const key = (await cli(['key', 'create', 'owner'])).trim();
      const node = await startNode();
      const answered = load(node, key);
      await waitFor(async () => (await recorded(key)) > 20, 10_000);
      await stop(node, signal);
      const total = await answered;
      if (signal === 'SIGKILL') await startNode();
      // Recorded: at least every one answered (a response cut by the stop may be recorded too, with its status).
      await waitFor(async () => (await recorded(key)) >= total, 5000).catch(async () =>
        assert.fail(`${await recorded(key)} recorded of ${total} answered`),
      );
      assert.ok(total > 20);
    });
  }
});
