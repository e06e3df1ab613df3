/**
 * Hostile SQL over real HTTP: what a client sends must never change a scraper's data, write a file,
 * change a query process's settings or reach another scraper's data. Statement by statement the
 * corpus below is what gets past a read-only SQLite connection (notes, section 2).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeDb, sha256File, tempDir } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
let bobKey: string;
/** Data files of alice/one, bob/two and alice/secret (private). */
let files: { alice: string; bob: string; secret: string };
let aliceId: number;
let hashesBefore: Record<string, string>;
let listingBefore: string[];
/** Per-process settings as read before the corpus ran, one answer per request. */
let settingsBefore: unknown[];

/** A folder the server never uses: VACUUM INTO and ATTACH targets go here, and it must stay empty. */
const scratch = tempDir('siphon-sql-safety-');
const vacuumTarget = path.join(scratch, 'vacuumed.sqlite');
const attachTarget = path.join(scratch, 'attached-new.sqlite');
const relativeTarget = 'siphon-sql-safety-relative.sqlite';
const aliceRows = 3000;
/** More than the test server's 2 query processes, sent at once so every process answers some. */
const spread = 6;

interface Answer {
  status: number;
  contentType: string | null;
  cacheControl: string | null;
  text: string;
}

async function get(scraper: string, query: string, format = 'json', withKey = key): Promise<Answer> {
  const res = await fetch(dataUrl(server.base, scraper, format, { key: withKey, query }));
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    cacheControl: res.headers.get('cache-control'),
    text: await res.text(),
  };
}

async function rows(scraper: string, query: string): Promise<unknown[]> {
  const a = await get(scraper, query);
  assert.equal(a.status, 200, `${query} → ${a.status} ${a.text}`);
  return JSON.parse(a.text) as unknown[];
}

/** The same query sent `spread` times at once, so that it runs on every query process. */
const everywhere = (scraper: string, query: string) => Promise.all(Array.from({ length: spread }, () => rows(scraper, query)));

/**
 * Rows of `sql` on alice/one straight from the query pool, past the SQL check of the HTTP layer: how
 * the tests look inside the query processes (their settings, what they have attached).
 */
async function direct(sql: string, poolKey: string): Promise<unknown[]> {
  const run = server.pool.run({ scraperId: aliceId, file: files.alice, sql, format: 'json', options: {} }, poolKey);
  const chunks: Buffer[] = [];
  for await (const chunk of run) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString()) as unknown[];
}

/** `sql` run directly `spread` times at once, one pool key each, so that it runs on every query process. */
const everywhereDirect = (sql: string) => Promise.all(Array.from({ length: spread }, (_, i) => direct(sql, `inspector-${i}`)));

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? listFiles(full) : [full];
    })
    .sort();
}

const scraperFolders = () => listFiles(path.join(server.dataDir, 'scrapers'));
const hashAll = () => Object.fromEntries(Object.entries(files).map(([name, file]) => [name, sha256File(file)]));

/** What a query process may change about itself: none of it may differ after the corpus. */
const settingsQuery = `select
  (select hard_heap_limit from pragma_hard_heap_limit) as hard_heap_limit,
  (select soft_heap_limit from pragma_soft_heap_limit) as soft_heap_limit,
  (select timeout from pragma_busy_timeout) as busy_timeout,
  (select query_only from pragma_query_only) as query_only,
  (select writable_schema from pragma_writable_schema) as writable_schema,
  (select threads from pragma_threads) as threads,
  (select cache_size from pragma_cache_size) as cache_size,
  (select journal_mode from pragma_journal_mode) as journal_mode`;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  ({ key: bobKey } = await server.catalog.addUser('bob'));
  const sources = tempDir();
  const one = makeDb(
    sources,
    'one.sqlite',
    `create table data (title text, n integer);
    with recursive c(n) as (select 1 union all select n + 1 from c where n < ${aliceRows})
    insert into data select 'alice title ' || n, n from c;`,
  );
  const two = makeDb(
    sources,
    'two.sqlite',
    `create table data (title text); insert into data values ('bob row');
    create table secrets (secret text); insert into secrets values ('bob secret');`,
  );
  const secret = makeDb(sources, 'secret.sqlite', `create table data (title text); insert into data values ('private row');`);
  await server.catalog.addScraper('alice/one', one, { isPrivate: false, description: '' });
  await server.catalog.addScraper('bob/two', two, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/secret', secret, { isPrivate: true, description: '' });
  const fileOf = async (owner: string, name: string) => (await server.store.findScraper(owner, name))!.data.file;
  files = { alice: await fileOf('alice', 'one'), bob: await fileOf('bob', 'two'), secret: await fileOf('alice', 'secret') };
  aliceId = (await server.store.findScraper('alice', 'one'))!.id;
  hashesBefore = hashAll();
  listingBefore = scraperFolders();
  settingsBefore = await everywhereDirect(settingsQuery);
});
after(async () => {
  await server.close();
  // Only there if a test above failed; left behind it would fail the next run too.
  rmSync(scratch, { recursive: true, force: true });
  rmSync(relativeTarget, { force: true });
});

// Expected messages: refused by Siphon before SQLite sees it, refused by the query process after
// prepare() (not read-only), or refused by SQLite/better-sqlite3 itself.
const siphonRefuses = (word: string) => new RegExp(`not one starting with "${word}"`);
const notReadOnly = /^Only a single read-only SELECT, WITH or VALUES statement can be run\.$/;
const oneStatement = /more than one statement/;
const pragmaRefused = (name: string) => new RegExp(`^"${name}" cannot be used`);

/** `$BOB`, `$NEW`, `$VAC` and `$REL` stand for paths known only once the server has started. */
const corpus: [string, RegExp][] = [
  ["attach '$BOB' as other", siphonRefuses('attach')],
  ["ATTACH DATABASE '$BOB' AS other", siphonRefuses('attach')],
  ["attach '$NEW' as fresh", siphonRefuses('attach')],
  ["vacuum into '$VAC'", siphonRefuses('vacuum')],
  ["vacuum into '$REL'", siphonRefuses('vacuum')],
  ['VACUUM', siphonRefuses('vacuum')],
  ['detach database main', siphonRefuses('detach')],
  ['begin', siphonRefuses('begin')],
  ['BEGIN IMMEDIATE', siphonRefuses('begin')],
  ['savepoint s1', siphonRefuses('savepoint')],
  ['reindex', siphonRefuses('reindex')],
  ['analyze', siphonRefuses('analyze')],
  ['create temp table t (x)', siphonRefuses('create')],
  ['create temp view v as select 1', siphonRefuses('create')],
  ['create temp trigger tr after insert on data begin select 1; end', siphonRefuses('create')],
  ['create table t (x)', siphonRefuses('create')],
  ["insert into data (title) values ('x')", siphonRefuses('insert')],
  ["replace into data (title) values ('x')", siphonRefuses('replace')],
  ["update data set title = 'x'", siphonRefuses('update')],
  ['delete from data', siphonRefuses('delete')],
  ['delete from data returning *', siphonRefuses('delete')],
  ['with x as (select 1) delete from data', notReadOnly],
  ['with x as (select 1) delete from data returning *', notReadOnly],
  ["with x as (select 1) insert into data (title) select 'x' from x", notReadOnly],
  ["with x as (select 1) update data set title = 'x'", notReadOnly],
  ['drop table data', siphonRefuses('drop')],
  ['alter table data rename to gone', siphonRefuses('alter')],
  ['PRAGMA writable_schema=1', siphonRefuses('pragma')],
  ['PRAGMA query_only=0', siphonRefuses('pragma')],
  ['PRAGMA journal_mode=wal', siphonRefuses('pragma')],
  ['PRAGMA hard_heap_limit=1', siphonRefuses('pragma')],
  ['pragma soft_heap_limit=1', siphonRefuses('pragma')],
  ['pragma busy_timeout=1', siphonRefuses('pragma')],
  ['pragma cache_size=-2000000', siphonRefuses('pragma')],
  ['pragma threads=3', siphonRefuses('pragma')],
  ['PRAGMA table_info(data)', siphonRefuses('pragma')],
  ['  \n\t PRAGMA hard_heap_limit=1', siphonRefuses('pragma')],
  ['-- comment\npragma hard_heap_limit=1', siphonRefuses('pragma')],
  ['/* comment */ pragma hard_heap_limit=1', siphonRefuses('pragma')],
  ['/* a */ -- b\n /* c */PrAgMa busy_timeout=1', siphonRefuses('pragma')],
  ['/* SQLite comments /* do not nest */ pragma hard_heap_limit=1', siphonRefuses('pragma')],
  ['EXPLAIN select 1', siphonRefuses('explain')],
  ['EXPLAIN QUERY PLAN select * from data', siphonRefuses('explain')],
  ['explain pragma hard_heap_limit=1', siphonRefuses('explain')],
  ["select 1; attach '$BOB' as other", oneStatement],
  ['select 1; -- x\n pragma hard_heap_limit=1', oneStatement],
  ['select 1;;select 2', oneStatement],
  ["values (1); vacuum into '$VAC'", oneStatement],
  ["with x as (select 1) select * from x; attach '$BOB' as other", oneStatement],
  ["select 1\u0000; attach '$BOB' as other", /NUL/],
  ["select load_extension('/lib/x')", /not authorized/],
  ["select readfile('/etc/passwd')", /no such function: readfile/],
  ["select writefile('$VAC', 'x')", /no such function: writefile/],
  // Pragma functions other than those describing the tables are refused before SQLite sees them.
  ['select * from pragma_hard_heap_limit(1)', pragmaRefused('pragma_hard_heap_limit')],
  ['select * from pragma_query_only(0)', pragmaRefused('pragma_query_only')],
];

const withPaths = (sql: string) =>
  sql.replaceAll('$BOB', files.bob).replaceAll('$NEW', attachTarget).replaceAll('$VAC', vacuumTarget).replaceAll('$REL', relativeTarget);

describe('hostile statements are refused and change nothing', () => {
  for (const [sql, message] of corpus) {
    test(`refused with 400: ${JSON.stringify(sql)}`, async () => {
      const a = await get('alice/one', withPaths(sql));
      assert.equal(a.status, 400, a.text);
      assert.equal(a.contentType, 'application/json; charset=utf-8');
      const body = JSON.parse(a.text) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['error']);
      assert.equal(typeof body.error, 'string');
      assert.match(body.error as string, message);
    });
  }

  test('after the corpus every data file is byte-identical and no file appeared beside one', () => {
    assert.deepEqual(hashAll(), hashesBefore);
    // No -wal, -shm or -journal file, and nothing VACUUM INTO or ATTACH could have made.
    assert.deepEqual(scraperFolders(), listingBefore);
  });

  test('after the corpus no VACUUM INTO or ATTACH target was created', () => {
    assert.equal(existsSync(vacuumTarget), false);
    assert.equal(existsSync(attachTarget), false);
    assert.equal(existsSync(relativeTarget), false);
    assert.deepEqual(readdirSync(scratch), []);
  });

  test('past the SQL check, SQLite refuses to set anything through a pragma function', async () => {
    for (const sql of ['select * from pragma_hard_heap_limit(1)', 'select * from pragma_query_only(0)']) {
      await assert.rejects(direct(sql, 'inspector'), /too many arguments/);
    }
  });

  test('after the corpus no query process has different settings (heap limits, busy timeout…)', async () => {
    const after = await everywhereDirect(settingsQuery);
    // The stock build does not enforce heap limits, so the value itself is what shows a PRAGMA never ran.
    for (const answer of after as { hard_heap_limit: number; soft_heap_limit: number }[][]) {
      assert.deepEqual([answer[0]!.hard_heap_limit, answer[0]!.soft_heap_limit], [0, 0]);
    }
    assert.deepEqual(after, settingsBefore);
  });

  test('after the corpus queries that need memory still succeed on every query process', async () => {
    const concat = await everywhere('alice/one', 'select length(group_concat(title)) as len from data');
    const expected = Array.from({ length: aliceRows }, (_, i) => `alice title ${i + 1}`).join(',').length;
    assert.deepEqual(
      concat,
      Array.from({ length: spread }, () => [{ len: expected }]),
    );
    const blob = await everywhere('alice/one', 'select length(randomblob(10000000)) as n');
    assert.deepEqual(
      blob,
      Array.from({ length: spread }, () => [{ n: 10000000 }]),
    );
  });
});

describe('legitimate queries still work', () => {
  const cases: [string, unknown[]][] = [
    ['-- hi\nselect title from data where n = 1', [{ title: 'alice title 1' }]],
    ['/* x */ select title from data where n = 2', [{ title: 'alice title 2' }]],
    ['select /* inside */ title -- and here\n from data where n = 3', [{ title: 'alice title 3' }]],
    ['select n from data where n = 4;', [{ n: 4 }]],
    ['select n from data where n = 5; -- comment', [{ n: 5 }]],
    ["select 'pragma table_info' as p", [{ p: 'pragma table_info' }]],
    [
      "select name, type from pragma_table_info('data') order by cid",
      [
        { name: 'title', type: 'TEXT' },
        { name: 'n', type: 'INTEGER' },
      ],
    ],
    ['with top as (select n from data order by n desc limit 2) select n from top order by n', [{ n: aliceRows - 1 }, { n: aliceRows }]],
    [
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4) SELECT x FROM c',
      [{ x: 1 }, { x: 2 }, { x: 3 }, { x: 4 }],
    ],
    [
      'VALUES (1, 2), (3, 4)',
      [
        { column1: 1, column2: 2 },
        { column1: 3, column2: 4 },
      ],
    ],
    ['values (1)', [{ column1: 1 }]],
    ['SELECT COUNT(*) AS c FROM DATA', [{ c: aliceRows }]],
    ['SeLeCt count(*) As c FrOm data WhErE n <= 10', [{ c: 10 }]],
  ];
  for (const [sql, expected] of cases) {
    test(`returns the right rows: ${JSON.stringify(sql)}`, async () => {
      assert.deepEqual(await rows('alice/one', sql), expected);
    });
  }
});

describe("a query cannot reach another scraper's data", () => {
  test("bob's rows are there to be read through bob/two", async () => {
    assert.deepEqual(await rows('bob/two', 'select secret from secrets'), [{ secret: 'bob secret' }]);
  });

  test("alice/one cannot attach bob's file, and nothing stays attached on any query process", async () => {
    assert.equal((await get('alice/one', `attach '${files.bob}' as other`)).status, 400);
    const answers = await Promise.all(Array.from({ length: spread }, () => get('alice/one', 'select * from other.secrets')));
    for (const a of answers) {
      assert.equal(a.status, 400, a.text);
      assert.match(a.text, /no such table: other\.secrets/);
    }
  });

  test("bob's tables do not exist for a query on alice/one", async () => {
    const a = await get('alice/one', 'select * from secrets');
    assert.equal(a.status, 400);
    assert.deepEqual(JSON.parse(a.text), { error: 'no such table: secrets' });
    assert.ok(!(await get('alice/one', 'select * from data')).text.includes('bob'));
  });

  test("the connection of alice/one has only alice's file open, on every query process", async () => {
    for (const list of await everywhereDirect('select name, file from pragma_database_list')) {
      const dbs = list as { name: string; file: string }[];
      assert.ok(
        dbs.every((d) => d.name === 'main' || d.name === 'temp'),
        JSON.stringify(dbs),
      );
      assert.deepEqual(
        dbs.find((d) => d.name === 'main'),
        { name: 'main', file: files.alice },
      );
      assert.ok(!dbs.some((d) => d.file === files.bob || d.file === files.secret), JSON.stringify(dbs));
    }
  });
});

describe('a private scraper is answered to other accounts exactly as an unknown one', () => {
  /** The answer with the scraper name it echoes blanked out, so the two can be compared whole. */
  const blanked = (a: Answer, name: string) => ({ ...a, text: a.text.replaceAll(name, '<name>') });

  const cases: [string, string, string][] = [
    ['json, select', 'json', 'select * from data'],
    ['json, a pragma (the query is never looked at)', 'json', 'pragma hard_heap_limit=1'],
    ['csv', 'csv', 'select * from data'],
    ['the whole sqlite file', 'sqlite', ''],
  ];
  for (const [label, format, query] of cases) {
    test(`404 with the same body as an unknown name: ${label}`, async () => {
      // Another account's key: the same answer as for a name that does not exist.
      const hidden = await get('alice/secret', query, format, bobKey);
      const unknown = await get('alice/nosuch', query, format, bobKey);
      assert.equal(hidden.status, 404);
      assert.deepEqual(JSON.parse(hidden.text), { error: "can't find scraper alice/secret" });
      assert.deepEqual(blanked(hidden, 'alice/secret'), blanked(unknown, 'alice/nosuch'));
      assert.ok(!hidden.text.includes('private row'));
      // Its owner's key reads it, under the same checks as any scraper (a pragma is still refused).
      const own = await get('alice/secret', query, format, key);
      assert.equal(own.status, query.startsWith('pragma') ? 400 : 200);
    });
  }
});
