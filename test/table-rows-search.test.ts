/**
 * Through HTTP, what the browsing engine does and the other page tests do not show: `_search` on a
 * table with a full-text index (the page and its JSON twin, compared with the same match run in
 * SQLite), text longer than 1,000 characters cut on the table page but whole on the row page and in
 * the twins, the row page and its twin: found, not found, and hostile rowids; and a filter value,
 * whatever it holds, is data (the rows SQLite gives for the same value bound). Real server.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { after, before, test } from 'node:test';
import { tablePath } from '../src/views/table-paths.js';
import { makeDb, placesSql } from './helpers/fixture-db.js';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
let file: string;
/** A table of hostile values: a filter on it must give the rows SQLite gives for the value bound. */
let placesFile: string;

/** Characters (code points), not UTF-16 units: an emoji counts as one, as SQLite counts it. */
const long = (chars: number) => [...'ab😀'.repeat(Math.ceil(chars / 3))].slice(0, chars).join('');
const texts = { 4: long(1000), 5: long(1001), 6: long(1500) } as Record<number, string>;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  file = makeDb(
    server.dataDir,
    'notices.sqlite',
    `create table notices (id integer primary key, title text, body text, link text);
     insert into notices values
       (1, 'Council meeting', 'The council meeting is on Monday', 'https://example.org/n/1'),
       (2, 'Road closure', 'Meeting point moved; the council or the RMS', null),
       (3, 'Засідання ради', 'Катумба: засідання ради у понеділок', 'javascript:alert(1)'),
       (4, 'Long 1000', '${texts[4]}', null),
       (5, 'Long 1001', '${texts[5]}', null),
       (6, 'Long 1500', '${texts[6]}', null),
       (7, 'Meeting', 'meeting meeting council', null);
     create virtual table notices_fts using fts5(title, body, content='notices', content_rowid='id');
     insert into notices_fts(notices_fts) values ('rebuild');
     create table plain (x text); insert into plain values ('council');
     create table big (v text);
     insert into big select printf('%.*c', 1048576, char(64 + x)) from (select 1 as x union all select 1 union all select 2 union all select 3);`,
  );
  await server.catalog.addScraper('alice/notices', file, { isPrivate: false, description: '' });
  placesFile = makeDb(server.dataDir, 'places.sqlite', placesSql);
  await server.catalog.addScraper('alice/places', placesFile, { isPrivate: false, description: '' });
});
after(() => server.close());

const notices = tablePath('alice', 'notices', 'notices');
const places = tablePath('alice', 'places', 'places');

async function get(path: string, withKey = false) {
  const res = await fetch(`${server.base}${path}`, { headers: withKey ? { 'x-api-key': key } : {}, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The ids SQLite's own FTS match gives, each term quoted as the page quotes it. */
function matching(terms: string[]): number[] {
  const db = new Database(file, { readonly: true });
  try {
    const query = terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' ');
    const sql = 'select id from notices where id in (select rowid from notices_fts where notices_fts match ?) order by id';
    return db.prepare(sql).pluck().all(query) as number[];
  } finally {
    db.close();
  }
}

test('_search: the page and its JSON twin give the rows SQLite matches, FTS syntax taken literally', async () => {
  const cases: [string, string[]][] = [
    ['council meeting', ['council', 'meeting']],
    ['ради', ['ради']],
    ['council OR', ['council', 'OR']],
    ['"meeting', ['"meeting']],
    ['NEAR(council', ['NEAR(council']],
  ];
  for (const [search, terms] of cases) {
    const expected = matching(terms);
    const q = `_search=${encodeURIComponent(search)}&_col=id`;
    const twin = await get(`${notices}.json?${q}`, true);
    assert.equal(twin.status, 200, `${search}: ${twin.text}`);
    const body = JSON.parse(twin.text) as { rows: { id: number }[]; count: number; description: string };
    assert.deepEqual(
      body.rows.map((r) => r.id),
      expected,
      search,
    );
    assert.equal(body.count, expected.length, search);
    assert.ok(body.description.includes(`matching ${JSON.stringify(search)}`), body.description);
    const page = await get(`${notices}?${q}`);
    assert.equal(page.status, 200, search);
    const shown = [...page.text.matchAll(/<a href="\/alice\/notices\/tables\/notices\/(\d+)"/g)].map((m) => Number(m[1]));
    assert.deepEqual([...new Set(shown)], expected, search);
    assert.match(page.text, /<input type="search" id="table-search" name="_search" value="[^"]+">/);
  }
  assert.ok(matching(['council', 'meeting']).length >= 2);
  // A table without a full-text index refuses _search in Siphon's shape, the page and the twin.
  const plain = tablePath('alice', 'notices', 'plain');
  const refused = await get(`${plain}.json?_search=council`, true);
  assert.equal(refused.status, 400);
  assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_VIEW_SEARCH');
  assert.match((JSON.parse(refused.text) as { error: string }).error, /no full-text index/);
  const refusedPage = await get(`${plain}?_search=council`);
  assert.equal(refusedPage.status, 400);
  assert.equal(refusedPage.headers.get('siphon-error-code'), 'SIPHON_ERR_VIEW_SEARCH');
  assert.ok(!(await get(plain)).text.includes('name="_search"'));
});

test('text past 1,000 characters is cut on the table page, whole on the row page and in the twins', async () => {
  const page = (await get(`${notices}?id__gte=4&id__lte=6&_col=body`)).text;
  assert.ok(page.includes(`<td>${texts[4]}</td>`), 'a value of exactly 1,000 characters is whole');
  for (const id of [5, 6]) {
    const cut = [...texts[id]!].slice(0, 1000).join('');
    assert.ok(
      page.includes(`<td class="cut">${cut}<span class="cut-mark">…</span> <a class="whole" href="/alice/notices/tables/notices/${id}">`),
      `row ${id} cut at 1,000 characters`,
    );
    assert.ok(!page.includes(texts[id]!), `row ${id} not whole on the table page`);
    assert.ok((await get(`${notices}/${id}`)).text.includes(texts[id]!), `row ${id} whole on its page`);
    const row = JSON.parse((await get(`${notices}/${id}.json`, true)).text) as { rows: { body: string }[] };
    assert.equal(row.rows[0]!.body, texts[id]);
  }
  const twin = JSON.parse((await get(`${notices}.json?id__gte=4&_col=body`, true)).text) as { rows: { body: string }[] };
  assert.deepEqual(
    twin.rows.slice(0, 3).map((r) => r.body),
    [texts[4], texts[5], texts[6]],
  );
  const csv = (await get(`${notices}.csv?id=6&_col=body`, true)).text;
  assert.equal(csv, `body\n${texts[6]}\n`);
});

test('facet values past 1,000 characters are counted whole and given cut, with no link, on the page and the twin', async () => {
  const page = (await get(`${notices}?id__gte=4&id__lte=6&_facet=body`)).text;
  assert.match(
    page,
    new RegExp(`<li><a href="[^"]*" title="Keep only the rows with this value">${texts[4]}</a> <span class="count">1</span></li>`),
  );
  for (const id of [5, 6]) {
    const cut = [...texts[id]!].slice(0, 1000).join('');
    assert.ok(page.includes(`<li class="cut">${cut}<span class="cut-mark">…</span> <span class="count">1</span></li>`), String(id));
  }
  const twin = JSON.parse((await get(`${notices}.json?id__gte=4&id__lte=6&_facet=body`, true)).text) as {
    facets: { body: { values: { value: string; count: number; cut: boolean; toggle_url: string | null }[] } };
  };
  // All three start with the same 1,000 characters: counted apart, only the whole one linked.
  assert.deepEqual(
    twin.facets.body.values.map((v) => [v.value === texts[4], v.count, v.cut, v.toggle_url === null]),
    [
      [true, 1, false, false],
      [true, 1, true, true],
      [true, 1, true, true],
    ],
  );
  // A facet of 1 MB values: a page of a few KB, the counts of the whole values.
  const big = tablePath('alice', 'notices', 'big');
  for (let load = 0; load < 2; load++) {
    const res = await get(`${big}?_facet=v&_col=v`);
    assert.equal(res.status, 200);
    assert.ok(res.text.length < 100_000, `${res.text.length} characters`);
  }
  const bigTwin = JSON.parse((await get(`${big}.json?_facet=v&_size=1`, true)).text) as {
    facets: { v: { values: { value: string; count: number }[]; timed_out: boolean } };
  };
  assert.deepEqual(
    bigTwin.facets.v.values.map((v) => [v.value.length, v.value[0], v.count]),
    [
      [1000, 'A', 2],
      [1000, 'B', 1],
      [1000, 'C', 1],
    ],
  );
});

test('a row page and its twin: every value whole, NULL said, only web addresses linked', async () => {
  const first = await get(`${notices}/1`);
  assert.equal(first.status, 200);
  assert.match(first.text, /<dt>body<\/dt><dd><span class="text">The council meeting is on Monday<\/span><\/dd>/);
  assert.match(first.text, /<a href="https:\/\/example.org\/n\/1" rel="nofollow noopener noreferrer">https:\/\/example.org\/n\/1<\/a>/);
  assert.match(first.text, /<link rel="alternate" type="application\/json" href="\/alice\/notices\/tables\/notices\/1\.json">/);
  assert.match((await get(`${notices}/2`)).text, /<dt>link<\/dt><dd><span class="null">null<\/span><\/dd>/);
  const third = await get(`${notices}/3`);
  assert.ok(third.text.includes('Катумба: засідання ради у понеділок'));
  assert.ok(!/href="javascript:/i.test(third.text));
  const twin = await get(`${notices}/2.json`, true);
  assert.equal(twin.status, 200);
  assert.deepEqual(JSON.parse(twin.text), {
    rowid: 2,
    columns: ['id', 'title', 'body', 'link'],
    rows: [{ id: 2, title: 'Road closure', body: 'Meeting point moved; the council or the RMS', link: null }],
  });
});

test("a missing row, and any rowid not an SQLite integer's one spelling, is a 404 in Siphon's shape, on the page and the twin", async () => {
  const rowids = [
    '999',
    '0',
    '-1',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '9'.repeat(100),
    '01',
    '-0',
    '1.0',
    '1e3',
    '0x1',
    ' 1',
    '1 or 1=1',
    "1' or '1'='1",
    '1;drop table notices',
    '<script>alert(1)</script>',
    '1/2',
    '\u0000',
    '١',
  ];
  for (const rowid of rowids) {
    const path = `${notices}/${encodeURIComponent(rowid)}`;
    const page = await get(path);
    assert.equal(page.status, 404, JSON.stringify(rowid));
    assert.equal(page.headers.get('siphon-error-code'), 'SIPHON_ERR_ROW_NOT_FOUND', rowid);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.ok(!page.text.includes('<script>alert'), rowid);
    const twin = await get(`${path}.json`, true);
    assert.equal(twin.status, 404, `${JSON.stringify(rowid)}.json`);
    assert.equal(twin.headers.get('siphon-error-code'), 'SIPHON_ERR_ROW_NOT_FOUND', rowid);
    assert.deepEqual(Object.keys(JSON.parse(twin.text) as object), ['error'], rowid);
  }
  assert.match((await get(`${notices}/999.json`, true)).text, /has no row with rowid \\"999\\"/);
  // None of them reached SQL: the table is whole.
  const db = new Database(file, { readonly: true });
  assert.equal(db.prepare('select count(*) from notices').pluck().get(), 7);
  db.close();
});

test('a filter value is always data: the rows are those SQLite gives for the same value bound', async () => {
  const db = new Database(placesFile, { readonly: true });
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
