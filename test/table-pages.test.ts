/**
 * The table and row pages and their twins on a real server: every parameter reaches the query (the
 * rows compared with SQLite's own answer), the form's redirect, pages open to anyone and never
 * downloads, twins keyed, rate-limited and recorded, 100 tables, 1 MB values, hostile names.
 * (In a browser: browser/browser-table-pages.test.ts.)
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { after, before, test } from 'node:test';
import { tablePath } from '../src/views/table-paths.js';
import { makeDb } from './helpers/fixture-db.js';
import { downloadsFrom, startServer, writtenDownloads, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
let bobKey: string;
let planningFile: string;

const hostile = `<script>alert("x")</script>'&`;
const megabyte = 1024 * 1024;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  ({ key: bobKey } = await server.catalog.addUser('bob'));
  planningFile = makeDb(
    server.dataDir,
    'planning.sqlite',
    `
    create table "applications.2026" (suburb text, title text, link text, cost integer, lodged text);
    with recursive c(x) as (select 1 union all select x + 1 from c where x < 250)
    insert into "applications.2026" select case x % 4 when 0 then 'Katoomba' when 1 then 'Leura' when 2 then 'Blackheath' else null end,
      'Application ' || x, 'https://example.org/da/' || x, x * 100, date('2026-01-01', '+' || (x % 90) || ' days') from c;
    create table "Дані" (a text); insert into "Дані" values ('привіт');
    create view katoomba as select title, cost from "applications.2026" where suburb = 'Katoomba';`,
  );
  await server.catalog.addScraper('alice/planning', planningFile, { isPrivate: false, description: '' });
  const evil = makeDb(
    server.dataDir,
    'evil.sqlite',
    `create table "${hostile.replaceAll('"', '""')}" ("${hostile.replaceAll('"', '""')}" text, link text);
     insert into "${hostile.replaceAll('"', '""')}" values ('${hostile.replaceAll("'", "''")}', 'javascript:alert(1)');`,
  );
  await server.catalog.addScraper('bob/evil', evil, { isPrivate: false, description: '' });
  const many = makeDb(
    server.dataDir,
    'many.sqlite',
    Array.from({ length: 100 }, (_, i) => `create table "t.${i}" (x integer); insert into "t.${i}" values (${i});`).join('\n'),
  );
  await server.catalog.addScraper('alice/many', many, { isPrivate: false, description: '' });
  const big = makeDb(
    server.dataDir,
    'big.sqlite',
    `create table big (n integer, v text);
     with recursive c(x) as (select 1 union all select x + 1 from c where x < 8)
     insert into big select x, printf('%.*c', ${megabyte}, char(64 + x)) from c;`,
  );
  await server.catalog.addScraper('alice/big', big, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/secret', planningFile, { isPrivate: true, description: '' });
});
after(() => server.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.base}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** SQLite's own answer, to compare the pages' rows with. */
function sqlite<T>(sql: string): T[] {
  const db = new Database(planningFile, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const apps = tablePath('alice', 'planning', 'applications.2026');

test('the scraper page links every table and view to its page, named with its row count', async () => {
  const { text } = await get('/alice/planning');
  assert.match(text, /<a href="\/alice\/planning\/tables\/applications~2E2026">applications.2026<\/a>/);
  assert.match(text, /<span>250 rows<\/span>/);
  assert.match(text, /href="\/alice\/planning\/tables\/%D0%94%D0%B0%D0%BD%D1%96">Дані</);
});

test('every parameter reaches the query: the JSON twin gives what SQLite gives for the same view', async () => {
  const params = 'suburb__in=Katoomba,Leura&cost__gte=5000&_sort_desc=cost&_col=title&_col=cost&_size=7';
  const twin = await get(`${apps}.json?${params}`, { 'x-api-key': key });
  assert.equal(twin.status, 200, twin.text);
  const body = JSON.parse(twin.text) as { rows: unknown[]; columns: string[]; count: number; next: string | null; next_url: string };
  const expected = sqlite<{ title: string; cost: number }>(
    `select title, cost from "applications.2026" where suburb in ('Katoomba', 'Leura') and cost >= 5000 order by cost desc limit 7`,
  );
  assert.deepEqual(body.columns, ['title', 'cost']);
  assert.deepEqual(body.rows, expected);
  const [{ n }] = sqlite<{ n: number }>(
    `select count(*) as n from "applications.2026" where suburb in ('Katoomba', 'Leura') and cost >= 5000`,
  );
  assert.equal(body.count, n);
  assert.ok(body.next && body.next_url.includes('_next='), twin.text);
  assert.match(
    twin.headers.get('link') ?? '',
    /^<http:\/\/127\.0\.0\.1:\d+\/alice\/planning\/tables\/applications~2E2026\.json\?.*_next=.*>; rel="next"$/,
  );
  // The HTML page shows the same rows, says what it shows, and links to its twins.
  const html = await get(`${apps}?${params}`);
  assert.equal(html.status, 200);
  for (const row of expected) assert.ok(html.text.includes(`>${row.title}<`), row.title);
  assert.match(html.text, /<link rel="alternate" type="application\/json" href="\/alice\/planning\/tables\/applications~2E2026\.json\?/);
  assert.match(html.headers.get('link') ?? '', /rel="next"/);
});

test('paging through a table with the Next links returns each row once', async () => {
  const seen: string[] = [];
  let path: string | null = `${apps}.json?_size=60&_sort=lodged`;
  while (path) {
    const res = await get(path, { 'x-api-key': key });
    assert.equal(res.status, 200, res.text);
    const body = JSON.parse(res.text) as { rows: { title: string }[]; next_url: string | null };
    seen.push(...body.rows.map((r) => r.title));
    path = body.next_url && new URL(body.next_url).pathname + new URL(body.next_url).search;
  }
  assert.equal(seen.length, 250);
  assert.equal(new Set(seen).size, 250);
});

test("the form's fields are answered with a redirect to the view's canonical address", async () => {
  const res = await get(
    `${apps}?_filter_column_1=suburb&_filter_op_1=exact&_filter_value_1=Leura&_filter_column_2=&_filter_op_2=exact&_filter_value_2=&_sort_column_1=cost&_sort_dir_1=desc&_sort_column_2=&_size=20&_facet=`,
  );
  assert.equal(res.status, 303);
  const location = res.headers.get('location') ?? '';
  assert.ok(location.startsWith(`${apps}?`), location);
  const params = new URLSearchParams(location.split('?')[1]);
  assert.ok(
    [...params.keys()].every((name) => !/^_(filter|sort)_(column|op|value|dir)_/.test(name)),
    location,
  );
  assert.equal(params.get('suburb') ?? params.get('suburb__exact'), 'Leura');
  assert.equal(params.get('_sort_desc'), 'cost');
  const followed = await get(location);
  assert.equal(followed.status, 200);
  assert.ok(followed.text.includes('Leura'));
});

test('facets: each value a link toggling its filter, selected ones marked, counts as SQLite counts them', async () => {
  const { text } = await get(`${apps}?_facet=suburb&suburb=Leura`);
  const counts = sqlite<{ suburb: string | null; n: number }>(
    `select suburb, count(*) as n from "applications.2026" where suburb = 'Leura' group by 1`,
  );
  assert.match(text, new RegExp(`<li class="selected"><a href="[^"]*"[^>]*>.*Leura</a> <span class="count">${counts[0]!.n}</span>`));
  const twin = JSON.parse((await get(`${apps}.json?_facet=suburb`, { 'x-api-key': key })).text) as {
    facets: { suburb: { values: { value: string | null; count: number; toggle_url: string }[] } };
  };
  const all = sqlite<{ suburb: string | null; n: number }>(`select suburb, count(*) as n from "applications.2026" group by 1`);
  for (const { suburb, n } of all) {
    const value = twin.facets.suburb.values.find((v) => v.value === suburb);
    assert.equal(value?.count, n, String(suburb));
  }
});

test('pages are open to anyone and are not downloads; twins need a key, obey its limits and are recorded', async () => {
  const before = (await writtenDownloads(server)).length;
  assert.equal((await get(apps)).status, 200);
  assert.equal((await get(`${apps}/1`)).status, 200);
  const refused = await get(`${apps}.json`);
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_KEY_MISSING');
  assert.equal((await get(`${apps}.json?key=${key}&_size=3`)).status, 200);
  assert.equal((await get(`${apps}.csv?_size=2`, { authorization: `Bearer ${key}` })).status, 200);
  assert.equal((await get(`${apps}/2.json`, { 'x-api-key': key })).status, 200);
  const recorded = await downloadsFrom(server, before, 3);
  assert.deepEqual(
    recorded.map((d) => [d.format, d.status, d.rows]),
    [
      ['table.json', 200, 3],
      ['table.csv', 200, 2],
      ['row.json', 200, 1],
    ],
  );
  // The key is never recorded with the query.
  assert.ok(
    recorded.every((d) => !d.query?.includes(key)),
    JSON.stringify(recorded),
  );
});

test('the CSV twin: a header, the rows, an attachment named after the table', async () => {
  const res = await get(`${apps}.csv?_col=title&_col=cost&_sort=cost&_size=2`, { 'x-api-key': key });
  assert.equal(res.text, 'title,cost\nApplication 1,100\nApplication 2,200\n');
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="alice-planning-applications.2026.csv"/);
});

test("a private scraper has no table pages but for its owner; its twins only for its owner's keys", async () => {
  assert.equal((await get(tablePath('alice', 'secret', 'applications.2026'))).status, 404);
  assert.equal((await get(`${tablePath('alice', 'secret', 'applications.2026')}.json`, { 'x-api-key': bobKey })).status, 404);
  assert.equal((await get(`${tablePath('alice', 'secret', 'applications.2026')}.json?_size=1`, { 'x-api-key': key })).status, 200);
});

test('unknown tables, rows and views are 404s; a bad column or a stale token a 4xx page, never a 5xx', async () => {
  const noTable = await get(tablePath('alice', 'planning', 'nope'));
  assert.equal(noTable.status, 404);
  assert.equal(noTable.headers.get('siphon-error-code'), 'SIPHON_ERR_TABLE_NOT_FOUND');
  assert.equal((await get(`${apps}/99999`)).headers.get('siphon-error-code'), 'SIPHON_ERR_ROW_NOT_FOUND');
  assert.equal((await get(`${apps}/abc`)).status, 404);
  assert.equal((await get(`${tablePath('alice', 'planning', 'katoomba')}/1`)).status, 404);
  const badColumn = await get(`${apps}?nope__exact=1`);
  assert.equal(badColumn.status, 400);
  assert.match(badColumn.headers.get('content-type') ?? '', /text\/html/);
  const stale = await get(`${apps}?_next=tampered`);
  assert.ok(stale.status >= 400 && stale.status < 500, String(stale.status));
  assert.match(stale.text, new RegExp(`href="${apps.replaceAll('~', '~')}">The first page of the current data`));
  const staleTwin = await get(`${apps}.json?_next=tampered`, { 'x-api-key': key });
  assert.ok(staleTwin.status >= 400 && staleTwin.status < 500);
  assert.ok(JSON.parse(staleTwin.text).error);
});

test('a view has a page (no row links); a non-Latin name round-trips', async () => {
  const view = await get(tablePath('alice', 'planning', 'katoomba'));
  assert.equal(view.status, 200);
  assert.ok(!view.text.includes('/tables/katoomba/'));
  const latin = await get(tablePath('alice', 'planning', 'Дані'));
  assert.equal(latin.status, 200);
  assert.ok(latin.text.includes('привіт'));
});

test('hostile table, column and cell text is escaped on the scraper, table and row pages', async () => {
  const path = tablePath('bob', 'evil', hostile);
  for (const p of ['/bob/evil', path, `${path}/1`, `${path}?${encodeURIComponent(hostile)}=x`]) {
    const { status, text } = await get(p);
    assert.ok(status < 500, `${p}: ${status}`);
    assert.ok(!text.includes('<script>alert'), p);
    assert.ok(!/href="javascript:/i.test(text), p);
  }
  const { text } = await get(path);
  assert.ok(text.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;'));
});

test('100 tables: the scraper page names each with its count, and each table page answers', async () => {
  const { text } = await get('/alice/many');
  for (let i = 0; i < 100; i++) assert.ok(text.includes(`href="/alice/many/tables/t~2E${i}">t.${i}</a>`), `t.${i}`);
  for (let i = 0; i < 100; i++) {
    const res = await get(tablePath('alice', 'many', `t.${i}`));
    assert.equal(res.status, 200, `t.${i}`);
    assert.ok(res.text.includes(`<td class="num">${i}</td>`));
  }
});

test('1 MB values: the table page cuts them (bounded bytes), the row page and the twins give them whole', async () => {
  const pageRes = await get(tablePath('alice', 'big', 'big'));
  assert.equal(pageRes.status, 200);
  assert.ok(Buffer.byteLength(pageRes.text) < 8 * 1100 + 40_000, `${Buffer.byteLength(pageRes.text)} bytes`);
  assert.match(pageRes.text, /<a class="whole" href="\/alice\/big\/tables\/big\/1">the whole value<\/a>/);
  const row = await get(`${tablePath('alice', 'big', 'big')}/3`);
  assert.ok(row.text.includes('C'.repeat(megabyte)));
  const twin = JSON.parse((await get(`${tablePath('alice', 'big', 'big')}.json?_size=2`, { 'x-api-key': key })).text) as {
    rows: { v: string }[];
  };
  assert.equal(twin.rows[1]!.v.length, megabyte);
});

test("each visitor address has a budget of pages a minute, each key its rate limit; past them, 429 in Siphon's shape", async () => {
  const limited = await startServer({ pagesPerMinute: 2, rateLimitPerMinute: 1 });
  try {
    const { key: limitedKey } = await limited.catalog.addUser('alice');
    await limited.catalog.addScraper('alice/planning', planningFile, { isPrivate: false, description: '' });
    const at = (p: string) => fetch(`${limited.base}${p}`);
    assert.equal((await at(apps)).status, 200);
    assert.equal((await at(`${apps}/1`)).status, 200);
    const third = await at(apps);
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('siphon-error-code'), 'SIPHON_ERR_PAGES_RATE_LIMITED');
    assert.ok(Number(third.headers.get('retry-after')) > 0);
    // The scraper page and the twins are not counted in it; the twins count against the key's own limit.
    assert.equal((await at('/alice/planning')).status, 200);
    const twin = () => fetch(`${limited.base}${apps}.json?_size=1`, { headers: { 'x-api-key': limitedKey } });
    assert.equal((await twin()).status, 200);
    const past = await twin();
    assert.equal(past.status, 429);
    assert.equal(past.headers.get('siphon-error-code'), 'SIPHON_ERR_RATE_LIMITED');
  } finally {
    await limited.close();
  }
});
