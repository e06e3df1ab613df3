/**
 * Nothing of the server shows through SQL, error messages, pages or headers: no response of a battery
 * of SQL (pragma_database_list in every spelling, the other pragma functions, views over them, SQL
 * that fails in every way), of any page or of a refused publish holds the data folder's path or
 * name (its tmp/ holds the query processes' temporary files), nor the system's temporary folder.
 * The pragma functions that describe the tables still answer as SQLite does.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { pragmaDatabaseListOddities, pragmaDatabaseListSpellings } from './helpers/pragma-spellings.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';
import { putBody } from './helpers/upload.js';

let server: TestServer;
let key: string;
/** alice/one's data file, as the server stores it. */
let file: string;
/** Strings no response may contain. */
let secrets: string[];

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  const sources = tempDir();
  const one = makeDb(
    sources,
    'one.sqlite',
    `create table data (title text, n integer); create index data_n on data (n);
    insert into data values ('first', 1), ('second', 2);
    create table child (id integer primary key, data_n integer references data (n));`,
  );
  // A publisher's views over pragma functions: reading them would show the server to anyone.
  const viewy = makeDb(
    sources,
    'viewy.sqlite',
    `create table data (title text); insert into data values ('x');
    create view files as select * from pragma_database_list;
    create view options as select * from pragma_compile_options;
    create view nested as select (select file from files limit 1) as f from data;`,
  );
  await server.catalog.addScraper('alice/one', one, { isPrivate: false, description: 'One' });
  await server.catalog.addScraper('alice/viewy', viewy, { isPrivate: false, description: 'Views' });
  file = (await server.store.findScraper('alice', 'one'))!.data.file;
  const dataDir = path.resolve(server.dataDir);
  secrets = [...new Set([dataDir, realpathSync(dataDir), path.basename(dataDir), `${path.resolve(os.tmpdir())}${path.sep}`])];
});
after(() => server.close());

/** Asserts that no header and no byte of the body (read as latin1, so binary bodies are searched too) holds a secret. */
async function assertNothingShows(res: Response, what: string): Promise<string> {
  const body = Buffer.from(await res.arrayBuffer());
  const text = body.toString('latin1');
  for (const secret of secrets) {
    for (const [name, value] of res.headers) assert.ok(!value.includes(secret), `${what}: header ${name} shows ${secret}: ${value}`);
    assert.ok(!text.includes(secret), `${what}: the body shows ${secret}: ${text.slice(0, 500)}`);
  }
  return body.toString('utf8');
}

async function query(sql: string, format = 'json', scraper = 'alice/one', extra: Record<string, string> = {}) {
  const res = await fetch(dataUrl(server.base, scraper, format, { key, query: sql, ...extra }));
  return { status: res.status, text: await assertNothingShows(res, `${format} ${sql}`) };
}

/** The message of an error answer. */
function errorOf(a: { status: number; text: string }): string {
  assert.equal(a.status, 400, a.text);
  return (JSON.parse(a.text) as { error: string }).error;
}

/** Rows of `sql` on alice/one straight from the query pool, past the HTTP layer's SQL check. */
async function direct(sql: string): Promise<string> {
  const scraper = (await server.store.findScraper('alice', 'one'))!;
  const run = server.pool.run({ scraperId: scraper.id, file: scraper.data.file, sql, format: 'json', options: {} }, 'inspector');
  const chunks: Buffer[] = [];
  for await (const chunk of run) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('pragma functions that show the server are refused', () => {
  test('past the SQL check, each spelling of pragma_database_list shows the data file: the check is what stops it', async () => {
    for (const sql of pragmaDatabaseListSpellings) assert.ok((await direct(sql)).includes(file), sql);
  });

  for (const sql of [...pragmaDatabaseListSpellings, ...pragmaDatabaseListOddities]) {
    test(`refused: ${JSON.stringify(sql)}`, async () => {
      assert.match(errorOf(await query(sql)), /^"pragma_database_list" cannot be used/i);
    });
  }

  test('in every format, JSONP included', async () => {
    const sql = 'select file as title, file as content, file as link, file as date from pragma_database_list';
    for (const format of ['csv', 'ndjson', 'atom']) assert.match(errorOf(await query(sql, format)), /cannot be used/);
    const jsonp = await query(sql, 'json', 'alice/one', { callback: 'show' });
    assert.equal(jsonp.status, 200);
    assert.match(jsonp.text, /^\/\*\*\/show\(\{"error":"\\"pragma_database_list\\" cannot be used/);
  });

  const others = [
    'pragma_compile_options',
    'pragma_function_list',
    'pragma_module_list',
    'pragma_pragma_list',
    'pragma_collation_list',
    'pragma_cache_size',
    'pragma_temp_store',
    'pragma_temp_store_directory',
    'pragma_mmap_size',
    'pragma_threads',
    'pragma_busy_timeout',
    'pragma_soft_heap_limit',
    'pragma_hard_heap_limit',
    'pragma_data_version',
    'pragma_journal_mode',
    'pragma_page_count',
    'pragma_database_list',
  ];
  for (const name of others) {
    test(`refused: ${name}`, async () => {
      for (const spelled of [name, `"${name.toUpperCase()}"`]) {
        assert.match(errorOf(await query(`select * from ${spelled}`)), new RegExp(`^"${name}" cannot be used`, 'i'));
      }
    });
  }

  test("a publisher's view over a pragma function is refused by SQLite: the schema is not trusted", async () => {
    for (const [view, vtab] of [
      ['files', 'pragma_database_list'],
      ['options', 'pragma_compile_options'],
      ['nested', 'pragma_database_list'],
    ]) {
      assert.equal(errorOf(await query(`select * from ${view}`, 'json', 'alice/viewy')), `unsafe use of virtual table "${vtab}"`);
    }
  });
});

describe('the pragma functions that describe the tables answer as SQLite does', () => {
  const allowed = [
    "select * from pragma_table_info('data')",
    "select * from PRAGMA_TABLE_XINFO('data')",
    "select schema, name, type, ncol from \"pragma_table_list\" where name in ('data', 'child') order by name",
    "select * from main.pragma_index_list('data')",
    "select * from pragma_index_info('data_n')",
    "select * from pragma_index_xinfo('data_n')",
    "select * from pragma_foreign_key_list('child')",
  ];
  for (const sql of allowed) {
    test(sql, async () => {
      const a = await query(sql);
      assert.equal(a.status, 200, a.text);
      const db = new Database(file, { readonly: true });
      try {
        const expected = db.prepare(sql).all();
        assert.ok(expected.length > 0, 'the fixture gives each of them something to answer');
        assert.deepEqual(JSON.parse(a.text), expected);
      } finally {
        db.close();
      }
    });
  }
});

describe('SQL that fails or looks around shows nothing of the server', () => {
  const battery = [
    'select * from nosuch',
    'select * from data where',
    'select nosuch from data',
    "attach 'x.sqlite' as x",
    "select 1; attach 'x.sqlite' as x",
    "vacuum into 'copy.sqlite'",
    "select load_extension('libnothing')",
    "select readfile('siphon.db')",
    'select * from sqlite_temp_master',
    'select * from temp.sqlite_schema',
    'select * from main.sqlite_schema',
    'select * from dbstat',
    'select sqlite_version(), sqlite_source_id()',
    "select * from json_each('[1]')",
    'select zeroblob(-1)',
    'select * from data order by nosuch',
    'with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000) select x from c order by random() limit 1',
    'select count(*) from data a, data b, data c',
  ];
  for (const sql of battery) {
    test(JSON.stringify(sql), async () => {
      await query(sql);
    });
  }
});

describe('pages, headers and publishing show nothing of the server', () => {
  const pages = [
    '/',
    '/alice',
    '/alice/one',
    '/alice/viewy',
    '/alice/one.json',
    '/alice/viewy.json',
    '/docs',
    '/docs?scraper=alice/viewy',
    '/documentation/api',
    '/healthz',
    '/nosuch',
    '/alice/nosuch',
    '/alice/nosuch.json',
    '/assets/site.css',
    '/assets/views/client/query-builder.js',
    '/assets/shared/api-request.js',
    '/alice/one?table=data&sql=select+*+from+pragma_database_list&format=json',
  ];
  for (const page of pages) {
    test(`GET ${page}`, async () => {
      await assertNothingShows(await fetch(`${server.base}${page}`), page);
    });
  }

  test('data answers without a key, with a bad key, for an unknown format, and the sqlite file', async () => {
    for (const url of [
      `${server.base}/alice/one/data.json?query=select+1`,
      `${server.base}/alice/one/data.json?key=sph_bad&query=select+1`,
      `${server.base}/alice/one/data.xml?key=${key}&query=select+1`,
      `${server.base}/alice/one/data.sqlite?key=${key}`,
    ]) {
      await assertNothingShows(await fetch(url), url);
    }
  });

  test('a refused publish: a text body, a cut database, an empty body', async () => {
    const headers = { 'x-api-key': key, 'content-type': 'application/vnd.sqlite3' };
    const good = Buffer.from(await (await fetch(`${server.base}/alice/one/data.sqlite?key=${key}`)).arrayBuffer());
    for (const body of [Buffer.from('just some text'), good.subarray(0, 16), good.subarray(0, good.length / 2), Buffer.alloc(0)]) {
      const res = await putBody(server.base, 'alice/one', body, headers);
      assert.equal(res.status, 400);
      await assertNothingShows(res, `publish of ${body.length} bytes`);
    }
  });
});
