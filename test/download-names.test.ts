/**
 * Files with good names: `dl=1` on any data URL, and the table twins, send `Content-Disposition`
 * with a readable name in both `filename` (an ASCII fallback) and `filename*` (RFC 6266, UTF-8);
 * without `dl`, the data API's headers are those it always sent.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;

/** A table name in two scripts, with a space, a double quote, a backslash and a single quote. */
const oddTable = `商品 "x"\\'s`;
const oddSql = `"${oddTable.replace(/"/g, '""')}"`;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  const db = makeDb(
    server.dataDir,
    'shop.sqlite',
    `create table data (id integer primary key, name text);
     insert into data values (1, 'a'), (2, 'b');
     create table ${oddSql} (price real);
     insert into ${oddSql} values (1.5);`,
  );
  await server.catalog.addScraper('alice/shop', db, { isPrivate: false, description: '' });
});
after(() => server.close());

const url = (format: string, params: Record<string, string>) => dataUrl(server.base, 'alice/shop', format, { key, ...params });

async function disposition(target: string, init?: RequestInit): Promise<string | null> {
  const res = await fetch(target, init);
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  return res.headers.get('content-disposition');
}

/** The header's two names: the ASCII fallback as sent, and `filename*` decoded. */
function names(header: string | null): { fallback: string; utf8: string } {
  const match = /^attachment; filename="([^"\\]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]+)$/.exec(header ?? '');
  assert.ok(match, `not an attachment with both names: ${header}`);
  assert.match(match[1]!, /^[\x20-\x7e]*$/, 'the fallback is printable ASCII');
  return { fallback: match[1]!, utf8: decodeURIComponent(match[2]!) };
}

const queryHash = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 8);

test('without dl, the data API sends the headers it always did', async () => {
  const sql = 'select * from data';
  assert.equal(await disposition(url('csv', { query: sql })), 'attachment; filename="alice-shop.csv"');
  assert.equal(await disposition(url('sqlite', {})), 'attachment; filename="alice-shop.sqlite"');
  assert.equal(await disposition(url('json', { query: sql })), null);
  assert.equal(await disposition(url('ndjson', { query: sql })), null);
  assert.equal(await disposition(url('json', { query: sql, dl: '0' })), null);
  assert.equal(await disposition(url('csv', { query: sql, dl: '0' })), 'attachment; filename="alice-shop.csv"');
});

test('dl=1 on a whole-table query names the file for the table, in every spelling of its name', async () => {
  for (const sql of ['select * from data', 'SELECT * FROM "data";', 'select * from [DATA]', 'select  *  from `data` ']) {
    assert.deepEqual(names(await disposition(url('json', { query: sql, dl: '1' }))), {
      fallback: 'alice-shop-data.json',
      utf8: 'alice-shop-data.json',
    });
  }
  assert.deepEqual(names(await disposition(url('csv', { query: 'select * from data', dl: '1' }))).utf8, 'alice-shop-data.csv');
  assert.deepEqual(names(await disposition(url('ndjson', { query: 'select * from data', dl: '1' }))).utf8, 'alice-shop-data.ndjson');
});

test('a table name in any script survives whole in filename*, and is made safe in filename', async () => {
  const { fallback, utf8 } = names(await disposition(url('csv', { query: `select * from ${oddSql}`, dl: '1' })));
  assert.equal(utf8, `alice-shop-${oddTable}.csv`);
  assert.equal(fallback, 'alice-shop-____x___s.csv');
});

test('dl=1 on any other query names the file for a hash of its SQL; the same query, the same name', async () => {
  const sql = 'select name from data where id > 1';
  const expected = `alice-shop-query-${queryHash(sql)}.json`;
  assert.deepEqual(names(await disposition(url('json', { query: sql, dl: '1' }))), { fallback: expected, utf8: expected });
  assert.equal(names(await disposition(url('json', { query: sql, dl: '1' }))).utf8, expected);
  const other = 'select * from data where id = 1';
  assert.equal(names(await disposition(url('csv', { query: other, dl: '1' }))).utf8, `alice-shop-query-${queryHash(other)}.csv`);
  assert.equal(
    names(await disposition(url('json', { query: sql, dl: '1', callback: 'show' }))).utf8,
    `alice-shop-query-${queryHash(sql)}.js`,
  );
});

test('dl=1 on the database file keeps its name, with filename* too', async () => {
  assert.deepEqual(names(await disposition(url('sqlite', { dl: '1' }))), { fallback: 'alice-shop.sqlite', utf8: 'alice-shop.sqlite' });
});

test('dl in a POST body counts as in the URL', async () => {
  const sql = 'select id from data';
  const header = await disposition(`${server.base}/alice/shop/data.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: sql, dl: '1' }),
  });
  assert.equal(names(header).utf8, `alice-shop-query-${queryHash(sql)}.json`);
});

test('a dl that is not 0 or 1 is a 400 in Siphon shape, on the data API and the twins', async () => {
  const targets = [
    url('json', { query: 'select 1', dl: 'yes' }),
    url('sqlite', { dl: '2' }),
    `${server.base}/alice/shop/tables/data.json?key=${key}&dl=true`,
    `${server.base}/alice/shop/tables/data/1.json?key=${key}&dl=`,
  ];
  for (const target of targets) {
    const res = await fetch(target);
    assert.equal(res.status, 400, target);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_DL_INVALID', target);
    assert.match(await res.text(), /dl must be 1/);
    assert.equal(res.headers.get('content-disposition'), null);
  }
});

test("the table twins: .csv always named for the table, .json and a row's with dl=1", async () => {
  const twin = (path: string) => `${server.base}/alice/shop/tables/${path}${path.includes('?') ? '&' : '?'}key=${key}`;
  assert.deepEqual(names(await disposition(twin('data.csv'))), { fallback: 'alice-shop-data.csv', utf8: 'alice-shop-data.csv' });
  assert.equal(await disposition(twin('data.json')), null);
  assert.equal(names(await disposition(twin('data.json?dl=1'))).utf8, 'alice-shop-data.json');
  assert.equal(await disposition(twin('data/2.json')), null);
  assert.equal(names(await disposition(twin('data/2.json?dl=1'))).utf8, 'alice-shop-data-2.json');
  const odd = names(await disposition(twin(`${encodeURIComponent('商品')}+~22x~22~5C~27s.csv`)));
  assert.equal(odd.utf8, `alice-shop-${oddTable}.csv`);
});

test('dl=1 carries into the next page of a twin', async () => {
  const res = await fetch(`${server.base}/alice/shop/tables/data.json?key=${key}&_size=1&dl=1`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { next_url: string };
  assert.match(body.next_url, /[?&]dl=1(&|$)/);
  assert.match(res.headers.get('link') ?? '', /[?&]dl=1[&>]/);
});
