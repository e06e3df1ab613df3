/**
 * Paging through a table of 10,000 rows with every kind of sort returns each row exactly once, in
 * the order SQLite gives the same sort; a view pages by offset; a token from an older data version
 * or altered is refused with the first page of the view; counts and facets stop at their budgets.
 * Real query processes, a real data file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { browseTable, parseView, viewParams } from '../src/browse/index.js';
import { SiphonError } from '../src/errors.js';
import type { QueryPool } from '../src/pool/pool.js';
import type { TableInfo } from '../src/store/types.js';
import { browseScraper } from './helpers/browse-fixture.js';
import { startPool } from './helpers/query-pool.js';

const { scraper, db, table } = browseScraper(`
  create table t (a integer, b text, c real, "名 d" text);
  with recursive n(x) as (select 1 union all select x + 1 from n limit 10000)
  insert into t select case when x % 11 = 0 then null else x % 37 end,
    case when x % 7 = 0 then null else 'n' || (x % 5) end, (x * 7919) % 10007 / 3.0, case when x % 2 then '東' else null end from n;
  create index t_a on t (a);
  create view v as select rowid as id, * from t where a is not null;
  create table m (v, w text collate nocase, i integer);
  with recursive n(x) as (select 1 union all select x + 1 from n limit 10000)
  insert into m select
    case x % 9 when 0 then null when 1 then x % 50 when 2 then (x % 50) * 1.5 when 3 then cast(x % 50 as text)
      when 4 then 'ß' || (x % 7) when 5 then zeroblob(x % 3) when 6 then '東京' || (x % 5) when 7 then '' else 'Zürich' end,
    case x % 6 when 0 then 'katoomba' when 1 then 'Katoomba' when 2 then 'KATOOMBA' when 3 then null when 4 then 'Ñuñoa' else 'leura' || (x % 3) end,
    case x % 5 when 0 then 'n/a' when 1 then null else x % 17 end from n;
  create view slow as with recursive c(x) as (select 1 union all select x + 1 from c limit 50000000) select x from c;`);

let pool: QueryPool;
before(async () => {
  pool = startPool(1);
  await pool.ready();
});
after(() => pool.close());

/** Every page of a view, following the next tokens; each page's rows by their first cell or rowid. */
async function allPages(name: string, query: string): Promise<{ keys: string[]; pages: number }> {
  const info = table(name);
  const keys: string[] = [];
  let params: [string, string][] = [...new URLSearchParams(query)];
  let pages = 0;
  for (;;) {
    const view = parseView(params, info);
    const page = await browseTable(pool, scraper, info, view, 'tester');
    pages += 1;
    keys.push(...page.rows.map((r) => r.rowid ?? (r.cells[0]!.kind === 'null' ? 'null' : r.cells[0]!.text)));
    if (page.next === null) return { keys, pages };
    params = viewParams({ ...view, next: page.next }, info);
  }
}

test('paging by keyset returns every row once, in the order of the same sort run in SQLite', async () => {
  const sorts: [string, string][] = [
    ['', 'rowid'],
    ['_sort=a', 'a, rowid'],
    ['_sort_desc=a', 'a desc, rowid desc'],
    ['_sort=b&_sort_desc=a', 'b, a desc, rowid desc'],
    ['_sort_desc=b&_sort=a', 'b desc, a, rowid'],
    ['_sort_desc=b&_sort_desc=名 d', 'b desc, "名 d" desc, rowid desc'],
    ['_sort=名 d&_sort=b&_sort=a', '"名 d", b, a, rowid'],
    ['_sort_desc=c', 'c desc, rowid desc'],
  ];
  for (const [sort, order] of sorts) {
    const { keys, pages } = await allPages('t', `${sort}&_size=700`);
    const expected = (db.prepare(`select rowid from t order by ${order}`).pluck().all() as number[]).map(String);
    assert.equal(new Set(keys).size, 10_000, `${sort}: every row once`);
    assert.deepEqual(keys, expected, sort);
    assert.equal(pages, 15);
  }
  // Filtered, with NULLs in the sort column on both sides of a page's end.
  const { keys } = await allPages('t', '_sort_desc=b&a__lt=5&_size=97');
  assert.deepEqual(keys, (db.prepare('select rowid from t where a < 5 order by b desc, rowid desc').pluck().all() as number[]).map(String));
});

test('a view pages by offset, its rows once each', async () => {
  const { keys } = await allPages('v', '_sort=a&_size=900');
  const expected = (db.prepare('select id from v order by a').pluck().all() as number[]).map(String);
  assert.deepEqual([...keys].sort(), [...expected].sort());
  assert.equal(new Set(keys).size, expected.length);
});

test('a token for an older data version, or altered, is refused with the first page of its view', async () => {
  const info = table('t');
  const view = parseView(new URLSearchParams('_sort=a&a__gt=3&_size=10'), info);
  const page = await browseTable(pool, scraper, info, view, 'tester');
  const withNext = { ...view, next: page.next! };
  const republished = { ...scraper, data: { ...scraper.data, version: scraper.data.version + 1 } };
  await assert.rejects(browseTable(pool, republished, info, withNext, 'tester'), (err: unknown) => {
    assert.ok(err instanceof SiphonError && err.code === 'SIPHON_ERR_PAGE_TOKEN_STALE' && err.status === 409);
    assert.deepEqual((err as SiphonError & { firstPage: unknown }).firstPage, [
      ['_sort', 'a'],
      ['a__gt', '3'],
      ['_size', '10'],
    ]);
    return true;
  });
  // A keyset token on a view (the same names, another kind of table) is not its token.
  const asView: TableInfo = { ...info, kind: 'view' };
  await assert.rejects(browseTable(pool, scraper, asView, withNext, 'tester'), { code: 'SIPHON_ERR_PAGE_TOKEN_INVALID' });
  const altered = `${page.next!.slice(0, 5)}${page.next![5] === 'A' ? 'B' : 'A'}${page.next!.slice(6)}`;
  assert.throws(() => parseView([...viewParams(view, info), ['_next', altered]], info), { code: 'SIPHON_ERR_PAGE_TOKEN_INVALID' });
});

test("paging by keyset over mixed types, a NOCASE column and text in an integer column returns every row once, in SQLite's order", async () => {
  const sorts: [string, string][] = [
    ['_sort=v', 'v, rowid'],
    ['_sort_desc=v', 'v desc, rowid desc'],
    ['_sort=w', 'w, rowid'],
    ['_sort_desc=w&_sort=i', 'w desc, i, rowid'],
    ['_sort=i&_sort_desc=v', 'i, v desc, rowid desc'],
  ];
  for (const [sort, order] of sorts) {
    const { keys } = await allPages('m', `${sort}&_size=333`);
    const expected = (db.prepare(`select rowid from m order by ${order}`).pluck().all() as number[]).map(String);
    assert.equal(new Set(keys).size, 10_000, `${sort}: every row once`);
    assert.deepEqual(keys, expected, sort);
  }
});

test('a count past its budget is a lower bound, facets past theirs say so, and neither fails the page', async () => {
  const slow = table('slow');
  assert.deepEqual([slow.rows, slow.rowsCapped], [1_000_000, true]);
  const page = await browseTable(pool, scraper, slow, parseView(new URLSearchParams('x__gt=0&_facet=x&_size=3'), slow), 'tester');
  assert.deepEqual(
    page.rows.map((r) => r.cells[0]),
    ['1', '2', '3'].map((text) => ({ kind: 'number', text })),
  );
  assert.equal(page.countTruncated, true);
  assert.ok(page.count >= 3 && page.count < 50_000_000, String(page.count));
  assert.match(page.description, /^more than [\d,]+ rows where x > 0$/);
  assert.deepEqual(page.facets.x, { values: [], truncated: false, timedOut: true });
  assert.deepEqual(page.suggestedFacets, []);
});
