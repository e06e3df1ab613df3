/**
 * `bin/siphon store copy --to URL`: a data folder's SQLite store, made through the real command line
 * and a real server (accounts, keys, a web session, scrapers, downloads, a publish, a prune, a
 * removal), copied into a PostgreSQL database of its own, then served from it by `bin/siphon serve
 * --database-url` on the same data folder: what worked before works the same after.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { copyToPostgres } from '../src/store/copy-to-pg.js';
import { openMeta, runCli, runCliOk, startServe, waitFor, type ServeProcess } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { createTestDatabase, postgresSkip, type TestDatabase } from './helpers/pg-database.js';
import { dataUrl } from './helpers/server.js';
import { putBody, readVersion, versionDb } from './helpers/upload.js';
import { WebClient } from './helpers/web-client.js';

const skip = await postgresSkip();

const dataDir = tempDir();
const maps = 'https://maps.example.org';
const databases: TestDatabase[] = [];
const nodes: ServeProcess[] = [];
const keys: Record<'alice' | 'bob' | 'origin' | 'revoked', string> = { alice: '', bob: '', origin: '', revoked: '' };
let database: TestDatabase;
/** The signed-in visitor's cookies, set by the SQLite server. */
let carol: Map<string, string>;
/** What the pages and the command line said on SQLite, just before the copy. */
const onSqlite = { json: '', page: '', lists: {} as Record<string, string> };

const cli = (args: string[]) => runCliOk(args, { dataDir });
const onPg = (args: string[], url = database.url) => cli([...args, '--database-url', url]);
const get = (node: ServeProcess, key: string, scraper = 'alice/plants', headers: Record<string, string> = {}) =>
  fetch(dataUrl(node.base, scraper, 'json', { query: 'select count(*) as n from t' }), { headers: { 'x-api-key': key, ...headers } });
const downloads = async (node: ServeProcess, scraper = 'alice/plants') =>
  ((await (await fetch(`${node.base}/${scraper}.json`)).json()) as { downloads: { total: number; by: { owner: string; count: number }[] } })
    .downloads;
/** The count the scraper's page shows, in its data-downloads attribute. */
const pageCount = async (node: ServeProcess) => /data-downloads="(\d+)"/.exec(await (await fetch(`${node.base}/alice/plants`)).text())?.[1];
const listings = async (run: (args: string[]) => Promise<string>) =>
  Object.fromEntries(
    await Promise.all(
      [
        ['user', 'list'],
        ['scraper', 'list'],
        ['key', 'list', 'alice'],
        ['key', 'list', 'bob'],
      ].map(async (args) => [args.join(' '), await run(args)]),
    ),
  ) as Record<string, string>;

async function stop(node: ServeProcess): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGTERM');
  await node.exited;
}

/** Every row count of the database's tables and its schema version, to show that nothing changed. */
async function snapshot(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = ['accounts', 'api_keys', 'scrapers', 'sessions', 'server_secrets', 'downloads', 'download_totals', 'download_days'];
    const counts: string[] = [];
    for (const t of tables) counts.push(`${t} ${(await client.query<{ n: number }>(`select count(*)::int as n from ${t}`)).rows[0]!.n}`);
    const version = (await client.query<{ version: number }>('select version from siphon_schema')).rows[0]!.version;
    return [...counts, `schema ${version}`].join('\n');
  } finally {
    await client.end();
  }
}

/** The rows `store copy` says it copied, by table. */
const copied = (stdout: string) => Object.fromEntries([...stdout.matchAll(/^(\w+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));

describe('store copy from SQLite into PostgreSQL', { skip }, () => {
  before(async () => {
    database = await createTestDatabase();
    databases.push(database);
    keys.alice = (await cli(['user', 'add', 'alice'])).trim();
    keys.bob = (await cli(['user', 'add', 'bob'])).trim();
    keys.origin = (await cli(['key', 'create', 'bob', '--origin', maps, '--label', 'map page'])).trim();
    keys.revoked = (await cli(['key', 'create', 'bob', '--label', 'leaked'])).trim();
    await cli(['key', 'revoke', keys.revoked]);
    await cli(['scraper', 'add', 'alice/plants', '--db', versionDb(1), '--description', 'Plants of the valley']);
    await cli(['scraper', 'add', 'alice/secret', '--db', versionDb(1), '--private']);
    await cli(['scraper', 'add', 'bob/gone', '--db', versionDb(1)]);

    const node = await startServe(['--port', '0'], { dataDir });
    nodes.push(node);
    const web = new WebClient(node.base);
    const password = 'a good long password';
    const signup = await web.post('/signup', { _csrf: await web.token('/signup'), name: 'carol', password, password2: password });
    assert.equal(signup.status, 303, await signup.text());
    carol = new Map(web.cookies);

    // Downloads, then a prune of every one recorded (their counts stay), then more: the counts are
    // more than the records, as they are on a store that has been pruned.
    for (let i = 0; i < 3; i++) assert.equal((await get(node, keys.alice)).status, 200);
    assert.equal((await get(node, keys.bob, 'bob/gone')).status, 200);
    await waitFor(async () => (await downloads(node)).total === 3 && (await downloads(node, 'bob/gone')).total === 1, 5000);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.match(await cli(['downloads', 'prune', '--before', tomorrow]), /^pruned 4 downloads/);
    for (let i = 0; i < 2; i++) assert.equal((await get(node, keys.bob)).status, 200);
    assert.equal((await get(node, keys.origin, 'alice/plants', { origin: maps })).status, 200);
    // Refused, and recorded as sent: with a NUL, which PostgreSQL's text cannot hold.
    const nul = await fetch(dataUrl(node.base, 'alice/plants', 'json', { key: keys.bob, query: 'select 1\u0000' }));
    assert.equal(nul.status, 400);
    const published = await putBody(node.base, 'alice/plants', readFileSync(versionDb(2)), { 'x-api-key': keys.alice });
    assert.equal(published.status, 200, await published.text());
    await waitFor(async () => (await downloads(node)).total === 7, 5000);
    await cli(['scraper', 'remove', 'bob/gone']);

    onSqlite.json = JSON.stringify(await downloads(node));
    onSqlite.page = (await pageCount(node))!;
    await stop(node);
    onSqlite.lists = await listings(cli);
  });

  after(async () => {
    for (const node of nodes) await stop(node);
    for (const db of databases) await db.drop();
  });

  test('copies every table, and says how many rows of each', async () => {
    const out = await cli(['store', 'copy', '--to', database.url]);
    const meta = openMeta(dataDir);
    const sqliteCount = (table: string) => meta.prepare(`select count(*) from ${table}`).pluck().get() as number;
    try {
      assert.deepEqual(copied(out), {
        accounts: 3,
        api_keys: 4,
        scrapers: 3,
        data_versions: sqliteCount('data_versions'),
        sessions: 1,
        server_secrets: sqliteCount('server_secrets'),
        downloads: 4,
        download_totals: sqliteCount('download_totals'),
        download_days: sqliteCount('download_days'),
        download_account_days: sqliteCount('download_account_days'),
        download_spools: 0,
        saved_queries: sqliteCount('saved_queries'),
      });
    } finally {
      meta.close();
    }
    assert.match(out, /^copied into PostgreSQL, in one transaction:\n/);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ query: string }>('select query from downloads where status = 400');
      assert.deepEqual(rows, [{ query: 'select 1\uFFFD' }], "the refused query's NUL, as the PostgreSQL store keeps one");
    } finally {
      await client.end();
    }
  });

  test('the command line on PostgreSQL lists what it listed on SQLite', async () => {
    assert.deepEqual(await listings(onPg), onSqlite.lists);
    assert.match(onSqlite.lists['scraper list']!, /alice\/secret +private/, 'the private scraper is listed as private');
  });

  describe('a node on PostgreSQL, on the same data folder', () => {
    let node: ServeProcess;
    before(async () => {
      node = await startServe(['--port', '0'], { dataDir, env: { SIPHON_DATABASE_URL: database.url } });
      nodes.push(node);
    });

    test('shows the same download counts on the scraper pages', async () => {
      assert.equal(JSON.stringify(await downloads(node)), onSqlite.json);
      assert.equal(await pageCount(node), onSqlite.page);
      assert.equal(onSqlite.page, '7', 'the pruned downloads are counted');
    });

    test('takes the same keys, refuses the revoked one, and keeps an origin key to its origin', async () => {
      for (const key of [keys.alice, keys.bob]) assert.equal((await get(node, key)).status, 200);
      assert.deepEqual(await readVersion(node.base, 'alice/plants', keys.alice), { n: 200, v: 2 }, 'the published version');
      assert.equal((await get(node, keys.origin, 'alice/plants', { origin: maps })).status, 200);
      assert.equal((await get(node, keys.origin, 'alice/plants', { origin: 'https://elsewhere.example.org' })).status, 403);
      const revoked = await get(node, keys.revoked);
      assert.equal(revoked.status, 401);
      assert.equal(revoked.headers.get('siphon-error-code'), 'SIPHON_ERR_KEY_REVOKED');
    });

    test('keeps the private scraper private to its owner, and the removed one removed', async () => {
      assert.equal((await get(node, keys.alice, 'alice/secret')).status, 200, "the owner's key reads it");
      for (const scraper of ['alice/secret', 'bob/gone']) {
        assert.equal((await get(node, keys.bob, scraper)).status, 404, scraper);
        assert.equal((await fetch(`${node.base}/${scraper}`)).status, 404, scraper);
      }
      assert.doesNotMatch(await (await fetch(`${node.base}/`)).text(), /alice\/secret/);
    });

    test('keeps the web session signed in', async () => {
      const web = new WebClient(node.base);
      for (const [name, value] of carol) web.cookies.set(name, value);
      const page = await web.get('/account');
      assert.equal(page.status, 200);
      assert.match(await page.text(), /carol/);
    });

    test('numbers new rows after the copied ones: a new account, its key and its downloads', async () => {
      const dave = (await onPg(['user', 'add', 'dave'])).trim();
      assert.equal((await get(node, dave)).status, 200);
      const byDave = async () => (await downloads(node)).by.find((d) => d.owner === 'dave')?.count;
      await waitFor(async () => (await byDave()) === 1, 5000).catch(async () => assert.fail(`dave's downloads: ${await byDave()}`));
    });
  });

  test('a second copy into the same database is refused, and changes nothing', async () => {
    const was = await snapshot(database.url);
    const r = await runCli(['store', 'copy', '--to', database.url], { dataDir });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'siphon: the database of --to already holds 4 accounts and 3 scrapers: store copy only copies into a database without any; nothing was changed\n',
    );
    assert.equal(await snapshot(database.url), was);
  });

  test('copied in batches of two rows, the store is the same', async () => {
    const other = await createTestDatabase();
    databases.push(other);
    const counts = await copyToPostgres(dataDir, other.url, 2);
    assert.equal(counts.downloads, 4);
    assert.deepEqual(await listings((args) => onPg(args, other.url)), onSqlite.lists);
  });

  test('a bad or unreachable --to is one line, without its password, and copies nothing', async () => {
    const fails = async (to: string, stderr: string) => {
      const r = await runCli(['store', 'copy', '--to', to], { dataDir });
      assert.deepEqual([r.code, r.stderr, r.stdout], [1, stderr, '']);
    };
    await fails('mysql://siphon:hunter2secret@db/siphon', 'siphon: --to must be a postgres:// or postgresql:// URL with no spaces\n');
    await fails(
      'postgres://siphon:hunter2secret@127.0.0.1:1/siphon',
      'siphon: PostgreSQL: connect ECONNREFUSED 127.0.0.1:1; nothing was copied\n',
    );
    const missing = new URL(database.url);
    missing.pathname = '/siphon_no_such_database';
    await fails(missing.href, 'siphon: PostgreSQL: database "siphon_no_such_database" does not exist; nothing was copied\n');
  });

  test("the store must be the data folder's: --database-url is refused, and so is a folder without siphon.db", async () => {
    const r = await runCli(['store', 'copy', '--to', database.url, '--database-url', database.url], { dataDir });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^siphon: store copy copies the data folder's siphon\.db: unset --database-url/);
    const empty = tempDir();
    const none = await runCli(['store', 'copy', '--to', database.url], { dataDir: empty });
    assert.deepEqual([none.code, none.stderr], [1, `siphon: there is no siphon.db in ${empty}: nothing to copy\n`]);
  });
});
