/**
 * CORS headers on the data API, read off the wire: every data response, success or error, in every
 * format, allows any origin; the preflight is answered without a key. (Real browsers using them:
 * browser-clients.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { formatNames } from '../src/formats/index.js';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
/** Another account's: alice's private scraper does not exist for it. */
let otherKey: string;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  ({ key: otherKey } = await server.catalog.addUser('bob'));
  const db = makeDb(
    server.dataDir,
    'd.sqlite',
    "create table data (title, content, link, date); insert into data values ('a', 'b', 'https://example.org/', '2026-01-01');",
  );
  await server.catalog.addScraper('alice/s', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/private', db, { isPrivate: true, description: '' });
});
after(() => server.close());

const origin = { origin: 'https://elsewhere.example' };

function assertCors(res: Response, what: string): void {
  assert.equal(res.headers.get('access-control-allow-origin'), '*', what);
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /ETag/, what);
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /Content-Disposition/, what);
}

test("every format's data response allows any origin", async () => {
  for (const format of formatNames) {
    const res = await fetch(dataUrl(server.base, 'alice/s', format, { query: 'select * from data' }), {
      headers: { ...origin, 'x-api-key': key },
    });
    assert.equal(res.status, 200, format);
    assertCors(res, format);
    await res.arrayBuffer();
  }
  const jsonp = await fetch(dataUrl(server.base, 'alice/s', 'json', { query: 'select 1', callback: 'cb', key }), { headers: origin });
  assertCors(jsonp, 'jsonp');
  const head = await fetch(dataUrl(server.base, 'alice/s', 'csv', { query: 'select 1' }), {
    method: 'HEAD',
    headers: { 'x-api-key': key },
  });
  assertCors(head, 'HEAD');
});

test('the scraper information (tables, downloads) allows any origin too', async () => {
  const res = await fetch(`${server.base}/alice/s.json`, { headers: origin });
  assert.equal(res.status, 200);
  assertCors(res, 'scraper.json');
  assert.equal(((await res.json()) as { name: string }).name, 's');
});

test('errors allow any origin too, so a page can read why its call failed', async () => {
  const cases: [string, string, Record<string, string>, Record<string, string>, number][] = [
    ['no key', 'json', { query: 'select 1' }, {}, 401],
    ['bad key', 'csv', { query: 'select 1' }, { 'x-api-key': 'sph_wrong' }, 401],
    ['private scraper', 'json', { query: 'select 1' }, { 'x-api-key': otherKey }, 404],
    ['unknown format', 'xml', { query: 'select 1' }, { 'x-api-key': key }, 404],
    ['bad SQL', 'ndjson', { query: 'select * from nope' }, { 'x-api-key': key }, 400],
    ['not a read', 'json', { query: 'delete from data' }, { 'x-api-key': key }, 400],
    ['atom without its columns', 'atom', { query: 'select 1' }, { 'x-api-key': key }, 400],
  ];
  for (const [what, format, params, headers, status] of cases) {
    const scraper = what === 'private scraper' ? 'alice/private' : 'alice/s';
    const res = await fetch(dataUrl(server.base, scraper, format, params), { headers: { ...origin, ...headers } });
    assert.equal(res.status, status, what);
    assertCors(res, what);
    assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string', what);
  }
});

test("a 304 (the client's copy is current) allows any origin too", async () => {
  const url = dataUrl(server.base, 'alice/s', 'json', { query: 'select 1' });
  const first = await fetch(url, { headers: { 'x-api-key': key } });
  await first.text();
  const etag = first.headers.get('etag');
  assert.ok(etag, 'data responses carry an ETag');
  // fetch() adds Cache-Control: no-cache to a conditional request unless told otherwise.
  const again = await fetch(url, { headers: { ...origin, 'x-api-key': key, 'if-none-match': etag, 'cache-control': 'max-age=0' } });
  assert.equal(again.status, 304);
  assertCors(again, '304');
});

test('the preflight is answered 204 with the methods (POST too) and headers (Content-Type too) a browser needs', async () => {
  for (const path of ['/alice/s/data.json', '/alice/s/data.sqlite', '/alice/private/data.csv', '/nobody/none/data']) {
    const res = await fetch(`${server.base}${path}`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    assert.equal(res.status, 204, path);
    assertCors(res, path);
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, OPTIONS');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    // Content-Type: a POST of JSON is not a simple request, so its type must be allowed by the preflight.
    for (const h of ['x-api-key', 'authorization', 'if-none-match', 'content-type']) assert.ok(allowed.includes(h), `${h} allowed`);
    assert.ok(Number(res.headers.get('access-control-max-age')) > 0);
    assert.equal(await res.text(), '');
  }
});

test('pages do not send CORS headers (only the API does)', async () => {
  const res = await fetch(`${server.base}/alice/s`, { headers: origin });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), null);
});
