/**
 * A saved query's page, `/<owner>/<scraper>/queries/<name>`, and the scraper page's list of them, on a
 * real server: the parameters as a form, the rows once each has a value (values that read like SQL
 * are values, bound), the form alone while one is missing, a query's failure as its error, private
 * ones their owner's only, markup escaped. Real query processes, a real data file, real sessions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hashPassword } from '../src/accounts/passwords.js';
import { makeDb, townsSql } from './helpers/fixture-db.js';
import { downloadsFrom, startServer, writtenDownloads, type TestServer } from './helpers/server.js';
import { WebClient } from './helpers/web-client.js';

let server: TestServer;
let owner: WebClient;
let other: WebClient;
const password = 'a long enough password';
const maxQueryChars = 1000;
const hostile = `<script>alert("x")</script>'&`;

async function signedIn(name: string): Promise<WebClient> {
  const { account } = await server.catalog.addUser(name);
  await server.store.setPasswordHash(account.id, await hashPassword(password));
  const client = new WebClient(server.base);
  assert.equal((await client.logIn(name, password)).status, 303);
  return client;
}

before(async () => {
  server = await startServer({ maxQueryChars });
  owner = await signedIn('alice');
  other = await signedIn('bob');
  const db = makeDb(
    server.dataDir,
    'towns.sqlite',
    `${townsSql}
     create table many (i integer);
     with recursive c(v) as (select 1 union all select v + 1 from c where v < 250) insert into many select v from c;`,
  );
  await server.catalog.addScraper('alice/towns', db, { isPrivate: false, description: '' });
  const save = (name: string, sql: string, more: { title?: string; description?: string; isPrivate?: boolean } = {}) =>
    server.catalog.saveQuery(
      'alice/towns',
      { name, title: more.title ?? '', description: more.description ?? '', sql, isPrivate: more.isPrivate ?? false },
      maxQueryChars,
    );
  await save('by-town', 'select id, town from t where town = :town and n >= :min order by id', {
    title: 'Towns since',
    description: 'Rows of a town\nwith n at least min',
  });
  await save('mine', 'select count(*) as n from t', { title: 'Only mine', isPrivate: true });
  await save('all-many', 'select i, i * 2 as "2" from many order by i;');
  await save('failing', 'select json(:n) as v');
  await save('long-text', "select printf('%.*c', 1500, 'y') as v");
  await save('huge', "select i, printf('%.*c', 400000, 'z') as v from many");
  await save('marked', `select 1 as "${hostile.replaceAll('"', '""')}" where :${'odd'} is not null`, {
    title: hostile,
    description: hostile,
  });
});
after(() => server.close());

const page = (client: WebClient | undefined, path: string) =>
  client ? client.get(path) : fetch(`${server.base}${path}`, { headers: { accept: 'text/html' } });

async function pageText(client: WebClient | undefined, path: string, status = 200): Promise<string> {
  const res = await page(client, path);
  const text = await res.text();
  assert.equal(res.status, status, text);
  return text;
}

/** The cells of the page's rows table, row by row. */
function rowsOf(text: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(text)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) => [...row!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, c]) => c!));
}

test('with both parameters given by bare name, the page shows the rows they select, and the form keeps them', async () => {
  const text = await pageText(undefined, '/alice/towns/queries/by-town?town=Leura&min=2');
  assert.deepEqual(rowsOf(text), [['2', 'Leura']]);
  assert.match(text, /<h1 class="query-title">Towns since<\/h1>/);
  assert.match(text, /<code>select id, town from t where town = :town and n &gt;= :min order by id<\/code>/);
  assert.match(text, /<label for="param-1"><code>:town<\/code><\/label> <input id="param-1" type="text" name="town" value="Leura">/);
  assert.match(text, /name="min" value="2"/);
  // The whole result in every row format, with the same values, by the data URLs.
  for (const format of ['json', 'csv', 'ndjson', 'atom'])
    assert.ok(text.includes(`href="/alice/towns/queries/by-town.${format}?town=Leura&amp;min=2"`), format);
  assert.deepEqual(rowsOf(await pageText(undefined, '/alice/towns/queries/by-town?min=0&town=Leura')), [
    ['1', 'Leura'],
    ['2', 'Leura'],
  ]);
});

test('values that read like SQL are shown as values and bound: they match only themselves, and nothing is dropped', async () => {
  for (const [id, town] of [
    ['4', "' or 1=1 --"],
    ['5', '"); drop table x; --'],
  ] as const) {
    const text = await pageText(undefined, `/alice/towns/queries/by-town?${new URLSearchParams({ town, min: '0' })}`);
    const escaped = town.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
    assert.deepEqual(
      rowsOf(text).map(([rowId]) => rowId),
      [id],
    );
    assert.ok(text.includes(`value="${escaped}"`), 'the field keeps the value');
  }
  const res = await fetch(
    `${server.base}/alice/towns/data.json?${new URLSearchParams({ key: (await server.catalog.addUser('carol')).key, query: 'select count(*) as n from x' })}`,
  );
  assert.deepEqual(await res.json(), [{ n: 1 }]);
});

test('a missing or blank parameter: the form and a hint naming it, no rows and no query', async () => {
  for (const path of ['/alice/towns/queries/by-town', '/alice/towns/queries/by-town?town=Leura&min=']) {
    const text = await pageText(undefined, path);
    assert.doesNotMatch(text, /<tbody>/);
    assert.match(text, /<form class="query-params" method="get" action="\/alice\/towns\/queries\/by-town"/);
    assert.match(text, /class="hint missing-params">Fill in (<code>:town<\/code>, )?<code>:min<\/code> and press Run/);
  }
  assert.match(await pageText(undefined, '/alice/towns/queries/by-town?town=Leura'), /name="town" value="Leura"/);
});

test("a query without parameters shows its first 100 rows and says more follow; columns in the query's order", async () => {
  const text = await pageText(undefined, '/alice/towns/queries/all-many');
  const rows = rowsOf(text);
  assert.equal(rows.length, 100);
  assert.deepEqual(rows[99], ['100', '200']);
  assert.match(text, /<thead><tr><th scope="col">i<\/th><th scope="col">2<\/th><\/tr><\/thead>/);
  assert.match(text, /The first 100 rows are shown/);
  assert.doesNotMatch(text, /<form class="query-params"/);
});

test("a query's failure is shown as its error, with its status and code, never a 5xx; a bound too", async () => {
  const res = await page(undefined, '/alice/towns/queries/failing?n=%7Bnot+json');
  const text = await res.text();
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SQL');
  assert.match(text, /<p class="error" role="alert">[^<]*malformed JSON[^<]* <code>SIPHON_ERR_SQL<\/code><\/p>/);
  assert.match(text, /name="n" value="\{not json"/);
  const long = await page(undefined, `/alice/towns/queries/failing?n=${'9'.repeat(maxQueryChars)}`);
  assert.equal(long.status, 400);
  assert.equal(long.headers.get('siphon-error-code'), 'SIPHON_ERR_PARAMS_TOO_LONG');
});

test('long text is cut at 1,000 characters; an answer past 32 MB is refused as a view too large, not held', async () => {
  const [[cell]] = rowsOf(await pageText(undefined, '/alice/towns/queries/long-text')) as [[string]];
  assert.equal(cell, `${'y'.repeat(1000)}<span class="cut-mark">…</span> <span class="hint">(cut at 1,000 characters)</span>`);
  const res = await page(undefined, '/alice/towns/queries/huge');
  assert.match(await res.text(), /more than 32 MB/);
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_VIEW_TOO_LARGE');
});

test('a private saved query is a 404 to anonymous visitors and other accounts, as a name never saved; its owner sees it', async () => {
  for (const client of [undefined, other]) {
    for (const name of ['mine', 'never-saved', 'Not_A_Slug']) {
      const res = await page(client, `/alice/towns/queries/${name}`);
      await res.text();
      assert.equal(res.status, 404, name);
      assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SAVED_QUERY_NOT_FOUND');
    }
  }
  const text = await pageText(owner, '/alice/towns/queries/mine');
  assert.match(text, /Only mine <span class="private-badge">private<\/span>/);
  assert.deepEqual(rowsOf(text), [['5']]);
  assert.equal((await page(undefined, '/alice/nothing/queries/mine')).status, 404);
});

test('the scraper page lists its saved queries, private ones for the owner only, marked', async () => {
  const anonymous = await pageText(undefined, '/alice/towns');
  const list = (text: string) => /<ul class="saved-query-list">([\s\S]*?)<\/ul>/.exec(text)?.[1] ?? '';
  assert.match(
    list(anonymous),
    /<a href="\/alice\/towns\/queries\/by-town">Towns since<\/a> <span class="summary">Rows of a town<\/span> <span class="hint">\(<code>:town<\/code>, <code>:min<\/code>\)<\/span>/,
  );
  assert.doesNotMatch(anonymous, /mine/);
  assert.doesNotMatch(await pageText(other, '/alice/towns'), /queries\/mine/);
  assert.match(
    list(await pageText(owner, '/alice/towns')),
    /<a href="\/alice\/towns\/queries\/mine">Only mine<\/a> <span class="private-badge">private<\/span>/,
  );
});

test("its download buttons: every row with the page's values, as the visitor's download; a private one the owner's only", async () => {
  const text = await pageText(owner, '/alice/towns/queries/by-town?town=Leura&min=0');
  const csvPath = '/alice/towns/download/queries/by-town.csv?town=Leura&min=0';
  assert.ok(text.includes(`href="${csvPath.replaceAll('&', '&amp;')}"`));
  assert.ok(text.includes(`href="${csvPath.replaceAll('&', '&amp;')}&amp;excel=1"`));
  assert.doesNotMatch(await pageText(owner, '/alice/towns/queries/by-town'), /download-buttons/, 'none while a value is missing');
  const from = (await writtenDownloads(server)).length;
  const res = await owner.get(csvPath);
  assert.equal(await res.text(), 'id,town\n1,Leura\n2,Leura\n');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition') ?? '', /filename="alice-towns-by-town\.csv"/);
  const json = await other.get('/alice/towns/download/queries/by-town.json?town=%27+or+1%3D1+--&min=0');
  assert.deepEqual(await json.json(), [{ id: 4, town: "' or 1=1 --" }]);
  const [mine, bobs] = await downloadsFrom(server, from, 2);
  assert.deepEqual([mine?.status, bobs?.status], [200, 200]);
  assert.notEqual(mine?.account_id, bobs?.account_id);
  // Anonymous: to the log-in page, and back here after; a private query: the owner's only.
  const anonymous = await fetch(`${server.base}${csvPath}`, { redirect: 'manual' });
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.headers.get('location'), `/login?next=${encodeURIComponent(csvPath)}`);
  assert.match(await pageText(undefined, anonymous.headers.get('location')!), /Log in to download the file you asked for/);
  const refused = await other.get('/alice/towns/download/queries/mine.csv');
  assert.equal(refused.status, 404);
  assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_SAVED_QUERY_NOT_FOUND');
  assert.equal(await (await owner.get('/alice/towns/download/queries/mine.json')).text(), '[\n{"n":5}\n]');
  const missing = await owner.get('/alice/towns/download/queries/by-town.csv?town=Leura');
  assert.equal(missing.status, 400);
  assert.equal(missing.headers.get('siphon-error-code'), 'SIPHON_ERR_PARAM_MISSING');
});

test('version= shows a kept data version, kept in the form and the data URLs; one not kept is a 410 page', async () => {
  await server.catalog.publish(
    'alice/towns',
    makeDb(
      server.dataDir,
      'towns-2.sqlite',
      "create table t (id integer primary key, town text, n integer); insert into t values (7, 'Leura', 3);",
    ),
  );
  assert.deepEqual(rowsOf(await pageText(undefined, '/alice/towns/queries/by-town?town=Leura&min=0')), [['7', 'Leura']]);
  const pinned = await pageText(undefined, '/alice/towns/queries/by-town?town=Leura&min=0&version=1');
  assert.deepEqual(rowsOf(pinned), [
    ['1', 'Leura'],
    ['2', 'Leura'],
  ]);
  assert.match(pinned, /<input type="hidden" name="version" value="1">/);
  assert.ok(pinned.includes('href="/alice/towns/queries/by-town.csv?town=Leura&amp;min=0&amp;version=1"'));
  assert.ok(pinned.includes('href="/alice/towns/queries/by-town?town=Leura&amp;min=0">The same query on the current data'));
  const gone = await page(undefined, '/alice/towns/queries/by-town?town=Leura&min=0&version=99');
  await gone.text();
  assert.equal(gone.status, 410);
});

test('markup in a title, a description and a parameter or column name is escaped on both pages', async () => {
  const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;';
  for (const text of [await pageText(undefined, '/alice/towns/queries/marked?odd=1'), await pageText(undefined, '/alice/towns')]) {
    assert.doesNotMatch(text, /<script>alert/);
    assert.ok(text.includes(escaped));
  }
});
