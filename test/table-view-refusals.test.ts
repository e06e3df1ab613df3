/**
 * Through HTTP: a hostile `_sort`, filter column, operator or value form is a 400 in Siphon's shape
 * on the table page and on its twins, never SQL: refused before any query runs, so the service in
 * this process answers (that a filter value, whatever it holds, is data: table-rows-search.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tablePath } from '../src/views/table-paths.js';
import { makeDb, placesSql } from './helpers/fixture-db.js';
import { startApp, type ListeningApp } from './helpers/app.js';

let server: ListeningApp;
let key: string;

before(async () => {
  server = await startApp();
  ({ key } = await server.catalog.addUser('alice'));
  const file = makeDb(server.dataDir, 'places.sqlite', placesSql);
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
