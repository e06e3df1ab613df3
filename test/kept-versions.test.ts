/**
 * Kept data versions on every data address (docs/api.md, "Kept data versions"): `version=` reads a
 * kept version through the data API, the table pages and their twins and the row pages; a version past
 * the retention answers 410 with a link to the current data; a malformed id is 400.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { hashPassword } from '../src/accounts/passwords.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';
import { WebClient } from './helpers/web-client.js';
import { putBody, versionDb } from './helpers/upload.js';

let server: TestServer;
let key: string;
const count = 'select count(*) as n, min(v) as v from t';

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
});
after(() => server.close());

async function publish(k: number): Promise<void> {
  const res = await putBody(server.base, 'alice/plants', readFileSync(versionDb(k)), { 'x-api-key': key });
  assert.equal(res.status, 200, await res.text());
}

/** The data API's answer to the count, at `version` when given. */
async function countAt(version?: string, format = 'json'): Promise<Response> {
  return fetch(dataUrl(server.base, 'alice/plants', format, { key, query: count, ...(version === undefined ? {} : { version }) }));
}

async function assertRefused(res: Response, status: number, code: string): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.equal(res.headers.get('siphon-error-code'), code);
  return text;
}

test('a pinned link reads its version after two publishes, in every format and on the pages; the current data without it', async () => {
  await publish(2);
  await publish(3);
  assert.deepEqual(await (await countAt('1')).json(), [{ n: 100, v: 1 }]);
  assert.deepEqual(await (await countAt('2')).json(), [{ n: 200, v: 2 }]);
  assert.deepEqual(await (await countAt()).json(), [{ n: 300, v: 3 }]);
  assert.deepEqual(await (await countAt('3')).json(), [{ n: 300, v: 3 }], 'the current version named');
  assert.equal(await (await countAt('1', 'csv')).text(), 'n,v\n100,1\n');
  // POST reads it from the body too.
  const posted = await fetch(`${server.base}/alice/plants/data.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: count, version: '2' }),
  });
  assert.deepEqual(await posted.json(), [{ n: 200, v: 2 }]);
  // Its ETag is its version's: a client's copy of version 1 is not current data.
  const etag = (await countAt('1')).headers.get('etag')!;
  assert.notEqual(etag, (await countAt()).headers.get('etag'));
  const revalidated = await fetch(dataUrl(server.base, 'alice/plants', 'json', { key, query: count, version: '1' }), {
    headers: { 'if-none-match': etag },
  });
  assert.equal(revalidated.status, 304);

  // The table's twin and page, and a row's, at version 1: every v is 1, and the page's links keep the version.
  const twin = (await (await fetch(`${server.base}/alice/plants/tables/t.json?_size=5&version=1&key=${key}`)).json()) as {
    rows: { v: number }[];
    count: number;
    next_url: string;
  };
  assert.deepEqual(
    twin.rows,
    Array.from({ length: 5 }, () => ({ v: 1 })),
  );
  assert.equal(twin.count, 100);
  assert.match(twin.next_url, /[?&]version=1(&|$)/);
  const page = await fetch(`${server.base}/alice/plants/tables/t?_sort=v&version=1`);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  assert.match(html, /100 rows/);
  assert.match(html, /href="[^"]*version=1[^"]*"/);
  assert.equal((await fetch(`${server.base}/alice/plants/tables/t/150?version=1`)).status, 404, 'version 1 has 100 rows');
  assert.equal((await fetch(`${server.base}/alice/plants/tables/t/150?version=2`)).status, 200);

  // "Download what you see" on the pinned page downloads the version it shows.
  const alice = (await server.store.findAccount('alice'))!;
  await server.store.setPasswordHash(alice.id, await hashPassword('a long password'));
  const client = new WebClient(server.base);
  await client.logIn('alice', 'a long password');
  const csvHref = /<a class="button-link" rel="nofollow" href="([^"]+)"[^>]*>CSV<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  assert.ok(csvHref?.includes('version=1'), csvHref);
  const download = await client.get(csvHref!);
  assert.equal(download.status, 200);
  assert.equal(await download.text(), `v\n${'1\n'.repeat(100)}`);
});

test("a pinned row page's links keep its version (the table, its JSON twin, its permanent link), as a pinned table page's links to its rows do", async () => {
  // Versions 1 to 3 are kept (the first test published 2 and 3): row 50 of version 2 while 3 is current.
  const pinned = await fetch(`${server.base}/alice/plants/tables/t/50?version=2`);
  const html = await pinned.text();
  assert.equal(pinned.status, 200, html);
  const hrefs = [...html.matchAll(/href="(\/alice\/plants\/tables\/[^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
  assert.deepEqual(hrefs, [
    '/alice/plants/tables/t/50.json?version=2',
    '/alice/plants/tables/t?version=2',
    '/alice/plants/tables/t/50?version=2',
    '/alice/plants/tables/t/50.json?version=2',
    '/alice/plants/tables/t?version=2',
  ]);
  assert.match(html, /it shows this row of data version 2, for as long as that version is kept/);
  const twin = (await (await fetch(`${server.base}/alice/plants/tables/t/50.json?version=2&key=${key}`)).json()) as {
    rows: { v: number }[];
  };
  assert.deepEqual(twin.rows, [{ v: 2 }]);
  // Without version=, the current data's links, with none.
  const current = await (await fetch(`${server.base}/alice/plants/tables/t/50`)).text();
  assert.ok(!/href="[^"]*version=/.test(current));
  assert.match(current, /it shows this row of the scraper&#39;s current data/);
  // A pinned table page links each row to that row at its version; a row it lacks links back to the pinned table.
  const table = await (await fetch(`${server.base}/alice/plants/tables/t?_size=5&version=2`)).text();
  const rowLinks = [...table.matchAll(/href="(\/alice\/plants\/tables\/t\/\d+[^"]*)"/g)].map((m) => m[1]);
  assert.ok(rowLinks.length >= 5);
  for (const link of rowLinks) assert.match(link!, /^\/alice\/plants\/tables\/t\/\d+\?version=2$/);
  const missing = await fetch(`${server.base}/alice/plants/tables/t/250?version=2`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /href="\/alice\/plants\/tables\/t\?version=2">The table t</);
});

test('the scraper page lists the kept versions, each table linking to its pinned view; a table page copies a pinned link', async () => {
  const page = await (await fetch(`${server.base}/alice/plants`)).text();
  const section = /<section class="versions"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
  const rows = [...section.matchAll(/<tr[^>]*><td>(\d+)[^<]*<\/td>[\s\S]*?href="([^"]+)">t<\/a> <span class="version-rows">([^<]+)</g)].map(
    (m) => [m[1], m[2], m[3]],
  );
  assert.deepEqual(rows, [
    ['3', '/alice/plants/tables/t?version=3', '300 rows'],
    ['2', '/alice/plants/tables/t?version=2', '200 rows'],
    ['1', '/alice/plants/tables/t?version=1', '100 rows'],
  ]);
  const table = await (await fetch(`${server.base}/alice/plants/tables/t?_sort=v`)).text();
  assert.match(table, /<button type="button" class="copy-link" data-link="\/alice\/plants\/tables\/t\?_sort=v&amp;version=3">/);
  const pinned = await (await fetch(`${server.base}/alice/plants/tables/t?_sort=v&version=1`)).text();
  assert.match(pinned, /Data version <strong>1<\/strong>/);
  assert.match(pinned, /<a class="current-data" href="\/alice\/plants\/tables\/t\?_sort=v">/);
});

test('paging a pinned query goes on through a publish, where the current data gives the stale-page error', async () => {
  const first = await fetch(
    dataUrl(server.base, 'alice/plants', 'json', { key, query: 'select rowid, v from t order by rowid', page_size: '60', version: '2' }),
  );
  assert.equal(first.status, 200);
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
  assert.ok(next?.includes('version=2'), 'the next page is pinned too');
  await publish(4);
  const second = await fetch(`${next}&key=${key}`);
  const rows = (await second.json()) as { rowid: number; v: number }[];
  assert.equal(second.status, 200);
  assert.deepEqual([rows.length, rows[0], rows.at(-1)], [60, { rowid: 61, v: 2 }, { rowid: 120, v: 2 }]);
});

test('the default keeps 5 versions: the fifth publish retires the first (the data the scraper was added with), answered 410 with a link to the current data', async () => {
  await publish(5);
  assert.equal((await countAt('1')).status, 200, 'version 1 is among the last 5');
  await publish(6);
  const text = await assertRefused(await countAt('1'), 410, 'SIPHON_ERR_VERSION_GONE');
  const { error } = JSON.parse(text) as { error: string };
  assert.ok(error.endsWith(`/alice/plants/data.json?${new URLSearchParams({ query: count })}`), error);
  assert.ok(!error.includes(key), 'no key in the link');
  assert.deepEqual(await (await countAt('2')).json(), [{ n: 200, v: 2 }]);
  await assertRefused(await countAt('99'), 410, 'SIPHON_ERR_VERSION_GONE');
  await assertRefused(await fetch(`${server.base}/alice/plants/tables/t.csv?version=1&key=${key}`), 410, 'SIPHON_ERR_VERSION_GONE');

  // A page says it as a page, linking to the same view of the current data.
  const page = await fetch(`${server.base}/alice/plants/tables/t?_sort=v&version=1`);
  const html = await assertRefused(page, 410, 'SIPHON_ERR_VERSION_GONE');
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  assert.match(html, /href="\/alice\/plants\/tables\/t\?_sort=v"/);
});

test('a malformed version is 400 on every data address', async () => {
  for (const bad of ['0', '01', 'abc', '-1', '1.5', '', '1234567890']) {
    await assertRefused(await countAt(bad), 400, 'SIPHON_ERR_VERSION_INVALID');
  }
  await assertRefused(await fetch(`${server.base}/alice/plants/tables/t?version=latest`), 400, 'SIPHON_ERR_VERSION_INVALID');
  await assertRefused(await fetch(`${server.base}/alice/plants/tables/t.json?version=x&key=${key}`), 400, 'SIPHON_ERR_VERSION_INVALID');
});
