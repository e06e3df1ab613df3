/**
 * The HTML pages as a client without JavaScript gets them: what each page lists and hides, that
 * scraper data is escaped, that no key appears, the docs read from the real error and format
 * definitions, and the headers pages and assets are sent with. (Browser behaviour: browser-*.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { formatNames } from '../src/formats/index.js';
import { hashKey } from '../src/keys.js';
import { readDownloads, waitFor } from './helpers/cli.js';
import { aDownload } from './helpers/download-record.js';
import { definedErrors } from './helpers/error-definitions.js';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let aliceKey: string;
let bobKey: string;

const hostile = '<script>alert(1)</script>';

before(async () => {
  server = await startServer({ queryTimeoutMs: 7000 });
  ({ key: aliceKey } = await server.catalog.addUser('alice'));
  ({ key: bobKey } = await server.catalog.addUser('bob'));
  await server.catalog.addUser('carol');
  const dir = server.dataDir;
  const planning = makeDb(
    dir,
    'planning.sqlite',
    `
    create table data (title text, n integer, r real, note text);
    insert into data values ('Two storey dwelling', 9007199254740993, 1.0, null), ('Deck', 2, 0.5, '${'x'.repeat(300)}');
    create table "2" (a);`,
  );
  await server.catalog.addScraper('alice/planning', planning, { isPrivate: false, description: 'Planning applications' });
  const small = makeDb(dir, 'small.sqlite', "create table t (a text); insert into t values ('100% off_sale');");
  await server.catalog.addScraper('alice/small', small, { isPrivate: false, description: 'Prices: 100% off' });
  await server.catalog.addScraper('bob/weather', small, { isPrivate: false, description: 'Rain gauges' });
  await server.catalog.addScraper('alice/secret', small, { isPrivate: true, description: 'Hidden things' });
  await server.catalog.addScraper('carol/hidden-only', small, { isPrivate: true, description: '' });
  const evil = makeDb(dir, 'evil.sqlite', `create table "${hostile}" ("${hostile}" text); insert into "${hostile}" values ('${hostile}');`);
  await server.catalog.addScraper('bob/evil', evil, { isPrivate: false, description: hostile });
  // planning: 3 downloads (bob 2, alice 1); weather: 1.
  for (const key of [bobKey, bobKey, aliceKey]) await get(dataUrl(server.base, 'alice/planning', 'json', { key, query: 'select 1' }));
  await get(dataUrl(server.base, 'bob/weather', 'json', { key: aliceKey, query: 'select 1' }));
  // Downloads are written in batches, within a moment.
  await waitFor(() => readDownloads(server.dataDir).length === 4, 5000);
});
after(() => server.close());

async function get(url: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const page = (p: string) => get(`${server.base}${p}`);
/** The scrapers a list page shows, in order, as owner/name. */
const listed = (text: string) =>
  [...text.matchAll(/<h3><a href="\/[^"]+">([^<]+)<\/a> \/ <a href="[^"]+">([^<]+)<\/a><\/h3>/g)].map(([, o, n]) => `${o}/${n}`);
const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

test('/ lists the public scrapers, most downloaded first, then most recently updated; never a private one', async () => {
  const { status, text } = await page('/');
  assert.equal(status, 200);
  assert.deepEqual(listed(text), ['alice/planning', 'bob/weather', 'bob/evil', 'alice/small']);
  assert.doesNotMatch(text, /secret|hidden-only|Hidden things/);
  assert.match(text, /Downloaded 3 times/);
});

test('/?q= filters on owner, name and description; LIKE wildcards in the search are literal', async () => {
  assert.deepEqual(listed((await page('/?q=BOB')).text), ['bob/weather', 'bob/evil']);
  assert.deepEqual(listed((await page('/?q=gauge')).text), ['bob/weather']);
  assert.deepEqual(listed((await page('/?q=plann')).text), ['alice/planning']);
  assert.deepEqual(listed((await page('/?q=100%25')).text), ['alice/small'], '% matches only a literal %');
  assert.deepEqual(listed((await page('/?q=_')).text), [], '_ matches only a literal _');
  assert.deepEqual(listed((await page('/?q=hidden')).text), [], 'private scrapers are not searched');
  const none = await page(`/?q=${encodeURIComponent(hostile)}`);
  assert.ok(none.text.includes(`value="${'&lt;script&gt;alert(1)&lt;/script&gt;'}"`), 'the search text is kept in the box, escaped');
  assert.ok(!none.text.includes(hostile));
});

test("/{owner} lists only that owner's public scrapers; an unknown owner is a 404 page", async () => {
  const alice = await page('/alice');
  assert.equal(alice.status, 200);
  assert.deepEqual(listed(alice.text), ['alice/planning', 'alice/small']);
  const carol = await page('/CAROL');
  assert.equal(carol.status, 200, 'names match case-insensitively');
  assert.deepEqual(listed(carol.text), []);
  assert.match(carol.text, /carol has no public scrapers/);
  const nobody = await page('/nobody');
  assert.equal(nobody.status, 404);
  assert.equal(nobody.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(nobody.text, /Not found/);
});

test("a private scraper's page is the same 404 page as an unknown one's", async () => {
  const secret = await page('/alice/secret');
  const unknown = await page('/alice/unknown1');
  assert.equal(secret.status, 404);
  assert.equal(unknown.status, 404);
  assert.equal(secret.text.replace('secret', 'X'), unknown.text.replace('unknown1', 'X'));
  assert.doesNotMatch(secret.text, /Hidden things/);
});

test('a scraper page shows its facts, downloads by account (most first), columns, row counts and exact preview values', async () => {
  const { status, text } = await page('/alice/planning');
  assert.equal(status, 200);
  assert.match(text, /<h1[^>]*><a href="\/alice">alice<\/a> \/ planning<\/h1>/);
  assert.match(text, /Planning applications/);
  assert.match(text, /Data last changed<\/dt><dd><time datetime="\d{4}-\d\d-\d\dT[^"]+">/);
  assert.match(text, /Size<\/dt><dd>\d+(\.\d)? KB</);
  assert.match(text, /Downloaded <strong data-downloads="3">3 times<\/strong> by/);
  const downloaders = [...text.matchAll(/<li><a href="\/(\w+)">\w+<\/a> <span class="count"[^>]*>(\d+)<\/span><\/li>/g)].map(
    ([, o, c]) => `${o}:${c}`,
  );
  assert.deepEqual(downloaders, ['bob:2', 'alice:1']);
  // Columns with their types, row counts, and values as the API writes them (exact integers, 1.0).
  assert.match(text, /<td><code>n<\/code><\/td><td>INTEGER<\/td>/);
  assert.match(text, /<td><code>r<\/code><\/td><td>REAL<\/td>/);
  assert.match(text, /2 rows/);
  assert.match(text, /<td class="num">9007199254740993<\/td><td class="num">1\.0<\/td><td class="null">null<\/td>/);
  assert.ok(text.includes(`${'x'.repeat(200)}…</td>`), 'long values are cut in the preview');
  assert.match(
    text,
    /<h3 id="table-1"><a href="\/alice\/planning\/tables\/2">2<\/a><\/h3>/,
    'a table named "2" is shown too, linked to its page',
  );
  assert.match(text, /This table has no rows/);
});

test('the preview is not a download, and a page load shows a download made a moment before', async () => {
  const before = readDownloads(server.dataDir).length;
  const first = await page('/bob/weather');
  assert.equal(readDownloads(server.dataDir).length, before, 'viewing the page (and its previews) records nothing');
  assert.match(first.text, /Downloaded <strong data-downloads="1">/);
  await get(dataUrl(server.base, 'bob/weather', 'csv', { key: bobKey, query: 'select 1' }));
  // Downloads are written in the order they end: once this one shows, a download by the page would too.
  await waitFor(async () => /Downloaded <strong data-downloads="2">2 times/.test((await page('/bob/weather')).text), 5000);
  assert.equal(readDownloads(server.dataDir).length, before + 1, 'the page recorded no download');
});

test("the chart has a bar for each of the last 90 days (UTC), ending today, with that day's downloads", async () => {
  const scraper = (await server.store.findScraper('alice', 'small'))!;
  const key = (await server.store.findKey(hashKey(aliceKey)))!;
  const daysAgo = (n: number) => new Date(Date.now() - n * 24 * 60 * 60 * 1000).toISOString();
  await server.store.recordDownloads(
    [daysAgo(0), daysAgo(0), daysAgo(89), daysAgo(90), daysAgo(400)].map((at) =>
      aDownload({ scraperId: scraper.id, accountId: key.account.id, keyId: key.id, at }),
    ),
  );
  const { text } = await page('/alice/small');
  const bars = [...text.matchAll(/data-day="([\d-]+)" data-count="(\d+)"/g)].map(([, day, n]) => ({ day: day!, count: Number(n) }));
  assert.equal(bars.length, 90);
  assert.deepEqual(bars.at(-1), { day: daysAgo(0).slice(0, 10), count: 2 });
  assert.deepEqual(bars[0], { day: daysAgo(89).slice(0, 10), count: 1 });
  assert.equal(
    bars.reduce((sum, b) => sum + b.count, 0),
    3,
    'downloads older than 90 days are not drawn',
  );
  assert.match(text, /data-total="3"/);
  assert.match(text, /Downloaded <strong data-downloads="5">5 times/, 'but they are counted');
  assert.match(text, /<summary>Downloads per day as a table<\/summary>/);
});

test('pages escape scraper data: description, table and column names and values appear only as text', async () => {
  for (const p of ['/', '/bob', '/bob/evil', '/docs?scraper=bob/evil']) {
    const { status, text } = await page(p);
    assert.equal(status, 200, p);
    assert.ok(!text.includes(hostile), `${p} holds the raw markup`);
    assert.ok(
      !/<script>(?!<\/script>)/.test(text.replace(/<script type="module" src="\/assets\/[\w-]+\.js"><\/script>/g, '')),
      `${p} has an unexpected script`,
    );
  }
  const { text } = await page('/bob/evil');
  const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;';
  assert.ok(text.includes(`<p class="lead description">${escaped}</p>`));
  assert.ok(text.includes(`<h3 id="table-1"><a href="/bob/evil/tables/~3Cscript~3Ealert~281~29~3C~2Fscript~3E">${escaped}</a></h3>`));
  assert.ok(text.includes(`<th scope="col">${escaped}</th>`));
  assert.ok(text.includes(`<td>${escaped}</td>`));
});

test('pages never contain a key, are not cached, and forbid inline scripts', async () => {
  for (const p of ['/', '/alice', '/alice/planning', '/docs', '/documentation/api', '/nobody']) {
    const { headers, text } = await page(p);
    for (const key of [aliceKey, bobKey]) assert.ok(!text.includes(key), `${p} shows a key`);
    assert.equal(headers.get('cache-control'), 'no-cache', p);
    assert.equal(headers.get('content-type'), 'text/html; charset=utf-8', p);
    assert.equal(headers.get('x-content-type-options'), 'nosniff', p);
    assert.match(headers.get('content-security-policy') ?? '', /script-src 'self'/, p);
    assert.doesNotMatch(text, /<script>|<script type="text\/javascript">| on\w+="|style="/, `${p} has inline script or style`);
  }
});

test('the key field has no name, so the builder form can never put a key in the page URL', async () => {
  const { text } = await page('/alice/planning');
  const keyInput = /<input id="qb-key"[^>]*>/.exec(text)?.[0];
  assert.ok(keyInput);
  assert.doesNotMatch(keyInput, /\bname=/);
  assert.match(text, /<form method="get" action="#api"/);
});

test('without JavaScript the builder renders the URL and examples for what was submitted', async () => {
  const { text } = await page(`/alice/planning?format=csv&sql=${encodeURIComponent('select title from "data" where n > 1')}&table=data`);
  const url = `${server.base}/alice/planning/data.csv?query=select+title+from+%22data%22+where+n+%3E+1`;
  assert.ok(text.includes(`<code id="qb-url">${url}</code>`), 'the request URL, form-encoded');
  const curl = unescape(/<code data-example="curl">([^<]*)<\/code>/.exec(text)![1]!);
  assert.equal(curl, `curl --fail-with-body -H 'X-API-Key: YOUR_API_KEY' '${url}'`);
  assert.match(text, /<option value="csv" data-kind="rows" selected>/);
  // The "Query this table" links choose a table's first rows.
  const other = await page('/alice/planning?table=2');
  assert.ok(other.text.includes(`<code id="qb-url">${server.base}/alice/planning/data.json?query=select+*+from+%222%22+limit+10</code>`));
});

test('/docs and /documentation/api list every error of src/errors/ with its status', async () => {
  const defined = definedErrors();
  assert.ok(defined.length > 20, 'the error definitions were found');
  for (const p of ['/docs', '/documentation/api']) {
    const { status, text } = await page(p);
    assert.equal(status, 200);
    for (const e of defined) {
      const row = new RegExp(`<tr>\\s*<td>([^<]+)</td>\\s*<td><code>${e.code}</code></td>`).exec(text);
      assert.ok(row, `${p} lacks ${e.code}`);
      assert.equal(row[1], /^\d+$/.test(e.status) ? e.status : '4xx', `${e.code}'s status`);
    }
  }
});

test('/docs shows every format, and its sample bodies are what the API really sends for those rows', async () => {
  const { text } = await page('/docs');
  for (const name of formatNames) assert.match(text, new RegExp(`<h4 id="${name}"><code>${name}</code></h4>`), name);
  const rows = `values ('Two storey dwelling', '12 Lurline Street, Katoomba', 'https://example.org/da/101', '2026-11-02'),
    ('Deck, pergola & carport', '3 Govett Street, Blackheath', 'https://example.org/da/102', '2026-11-03')`;
  const db = makeDb(server.dataDir, 'sample.sqlite', `create table data (title, content, link, date); insert into data ${rows};`);
  await server.catalog.addScraper('carol/sample', db, { isPrivate: false, description: '' });
  const query = 'select * from data';
  for (const [id, format, extra] of [
    ['json', 'json', {}],
    ['json--callback-jsonp', 'json', { callback: 'showRows' }],
    ['csv', 'csv', {}],
    ['ndjson', 'ndjson', {}],
  ] as const) {
    const sample = unescape(new RegExp(`<h4 id="${id}">[\\s\\S]*?<pre><code>([\\s\\S]*?)</code></pre>`).exec(text)![1]!);
    const real = await get(dataUrl(server.base, 'carol/sample', format, { key: aliceKey, query, ...extra }));
    // A Markdown code block ends in one newline whether the body does or not: the rest is exact.
    assert.equal(sample, real.text.endsWith('\n') ? real.text : `${real.text}\n`, `${id} sample`);
  }
});

test("/docs states this server's limits, and uses ?scraper= (public only) for its examples", async () => {
  const { text } = await page('/docs');
  assert.match(text, /Time one query may hold its query process[^<]*<\/td>\s*<td>7 s<\/td>/);
  assert.match(text, /Length of the SQL text[^<]*<\/td>\s*<td>100,000 characters/);
  const mostDownloaded = listed((await page('/')).text)[0]!;
  assert.ok(text.includes(`data-scraper="${mostDownloaded}"`), 'the most downloaded public scraper by default');
  assert.match((await page('/docs?scraper=bob/weather')).text, /data-scraper="bob\/weather"/);
  const hidden = await page('/docs?scraper=alice/secret');
  assert.doesNotMatch(hidden.text, /data-query-builder/);
  assert.match(hidden.text, /There is no public scraper alice\/secret/);
});

test('assets are served with a content type and an ETag, and revalidate to 304', async () => {
  for (const [name, type] of [
    ['site.css', 'text/css'],
    ['views/client/query-builder.js', 'text/javascript'],
    ['views/client/account.js', 'text/javascript'],
    ['shared/api-request.js', 'text/javascript'],
    ['shared/sql-names.js', 'text/javascript'],
  ]) {
    const res = await fetch(`${server.base}/assets/${name}`);
    assert.equal(res.status, 200, name);
    assert.match(res.headers.get('content-type') ?? '', new RegExp(`^${type}`));
    const etag = res.headers.get('etag');
    assert.ok(etag);
    assert.ok((await res.text()).length > 100);
    // fetch() adds Cache-Control: no-cache to a conditional request unless told otherwise.
    const again = await fetch(`${server.base}/assets/${name}`, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
    assert.equal(again.status, 304);
  }
  assert.equal((await fetch(`${server.base}/assets/../package.json`)).status, 404);
});
