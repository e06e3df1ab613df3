/**
 * Through HTTP: a hostile `_sort`, filter column, operator or value form is a 400 in Siphon's shape
 * on the table page and on its twins, never SQL; and a filter value, whatever it holds, is data (the
 * rows SQLite gives for the same value bound). Real server, real data file.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { after, before, test } from 'node:test';
import { tablePath } from '../src/views/table-paths.js';
import { makeDb } from './helpers/fixture-db.js';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
let file: string;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  file = makeDb(
    server.dataDir,
    'places.sqlite',
    `create table places (suburb text, cost integer, lodged text);
     insert into places values ('Katoomba', 10, '2026-01-02'), ('Leura', 20, '2026-02-03'), (null, 30, null),
       ('O''Brien', 40, '2026-03-04'), ('50%_off', 50, '2026-04-05'), ('Katoomba'' --', 60, '2026-05-06'), ('*', 70, '');`,
  );
  await server.catalog.addScraper('alice/places', file, { isPrivate: false, description: '' });
});
after(() => server.close());

const places = tablePath('alice', 'places', 'places');

async function get(path: string, withKey = false) {
  const res = await fetch(`${server.base}${path}`, { headers: withKey ? { 'x-api-key': key } : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

test("a hostile _sort, filter column or operator, or a value of the wrong form, is a 400 in Siphon's shape", async () => {
  const cases: [string, string][] = [
    ['_sort=nope', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_sort=suburb;drop table places', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_sort_desc="suburb"', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_sort=suburb desc', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_sort=<script>alert(1)</script>', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_sort=rowid', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_col=nope', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_nocol=cost) from places --', 'SIPHON_ERR_VIEW_COLUMN'],
    ['_facet=sqlite_master', 'SIPHON_ERR_VIEW_COLUMN'],
    ['nope=1', 'SIPHON_ERR_VIEW_COLUMN'],
    ['"suburb" or 1=1 --=1', 'SIPHON_ERR_VIEW_COLUMN'],
    ['<script>alert(1)</script>__exact=1', 'SIPHON_ERR_VIEW_COLUMN'],
    ['suburb__gt) or 1=1 --=1', 'SIPHON_ERR_VIEW_OPERATOR'],
    ['suburb__near=1', 'SIPHON_ERR_VIEW_OPERATOR'],
    ['suburb__GT=1', 'SIPHON_ERR_VIEW_OPERATOR'],
    ['suburb__=1', 'SIPHON_ERR_VIEW_OPERATOR'],
    ['cost__in=[1,', 'SIPHON_ERR_VIEW_VALUE'],
    ['lodged__date=yesterday', 'SIPHON_ERR_VIEW_VALUE'],
    ['_size=1001', 'SIPHON_ERR_VIEW_VALUE'],
    ['_facet_size=0', 'SIPHON_ERR_VIEW_VALUE'],
  ];
  for (const [pair, code] of cases) {
    const [name, value] = [pair.slice(0, pair.lastIndexOf('=')), pair.slice(pair.lastIndexOf('=') + 1)];
    const query = `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
    for (const twin of ['.json', '.csv']) {
      const res = await get(`${places}${twin}?${query}`, true);
      assert.equal(res.status, 400, `${pair} ${twin}`);
      assert.equal(res.headers.get('siphon-error-code'), code, pair);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, pair);
      assert.deepEqual(Object.keys(JSON.parse(res.text) as object), ['error'], pair);
    }
    const page = await get(`${places}?${query}`);
    assert.equal(page.status, 400, pair);
    assert.equal(page.headers.get('siphon-error-code'), code, pair);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/, pair);
    assert.ok(!page.text.includes('<script>alert'), pair);
  }
});

test('a filter value is always data: the rows are those SQLite gives for the same value bound', async () => {
  const db = new Database(file, { readonly: true });
  after(() => db.close());
  const cases: [string, string, string, unknown[]][] = [
    ['suburb', "' or 1=1 --", 'suburb = ?', ["' or 1=1 --"]],
    ['suburb', "Katoomba' --", 'suburb = ?', ["Katoomba' --"]],
    ['suburb', '*', 'suburb = ?', ['*']],
    ['suburb__contains', '%', "instr(suburb, '%') > 0", []],
    ['suburb__contains', "'", "instr(suburb, '''') > 0", []],
    ['suburb__startswith', '_', "substr(suburb, 1, 1) = '_'", []],
    ['suburb__like', "%' or '1'='1", 'suburb like ?', ["%' or '1'='1"]],
    ['suburb__glob', '*', 'suburb glob ?', ['*']],
    ['suburb__in', "O'Brien,1) or (1=1", 'suburb in (?, ?)', ["O'Brien", '1) or (1=1']],
    ['cost__gt', '1 or 1=1', 'cost > ?', ['1 or 1=1']],
    ['lodged__not', "'); drop table places; --", 'lodged != ?', ["'); drop table places; --"]],
  ];
  for (const [name, value, where, params] of cases) {
    const expected = db
      .prepare(`select cost from places where ${where} order by rowid`)
      .pluck()
      .all(...params);
    const res = await get(`${places}.json?${encodeURIComponent(name)}=${encodeURIComponent(value)}&_col=cost`, true);
    assert.equal(res.status, 200, `${name}=${value}: ${res.text}`);
    const body = JSON.parse(res.text) as { rows: { cost: number }[] };
    assert.deepEqual(
      body.rows.map((r) => r.cost),
      expected,
      `${name}=${value}`,
    );
  }
  assert.equal(db.prepare('select count(*) from places').pluck().get(), 7);
});
