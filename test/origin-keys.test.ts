/**
 * Keys limited to web origins (`key create --origin`), over real HTTP: allowed from their origins,
 * told by the Origin header or, when there is none (a <script> tag), by the Referer; refused 403
 * from anywhere else and when the request says neither, JSONP included; their answers name the
 * caller's origin in CORS instead of `*`; they can never publish.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { errors } from '../src/errors.js';
import { makeDb } from './helpers/fixture-db.js';
import { publishRefusals } from './helpers/log-lines.js';
import { dataUrl, startServer, writtenDownloads, type TestServer } from './helpers/server.js';
import { putBody, readVersion, versionDb } from './helpers/upload.js';

const maps = 'https://maps.example.org';
const local = 'http://localhost:8080';
let server: TestServer;
let originKey: string;
let plainKey: string;
const query = { query: 'select title from data order by title' };
const rows = [{ title: 'Bar' }, { title: 'Foo' }];

before(async () => {
  server = await startServer();
  plainKey = (await server.catalog.addUser('alice')).key;
  // Given as people type them: normalised when the key is made.
  originKey = await server.catalog.createKey('alice', { origins: ['HTTPS://Maps.Example.org:443/', local], label: 'map page' });
  const db = makeDb(server.dataDir, 'src.sqlite', `create table data (title text); insert into data values ('Foo'), ('Bar');`);
  await server.catalog.addScraper('alice/s', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
});
after(() => server.close());

const get = (params: Record<string, string>, headers: Record<string, string> = {}, format = 'json', scraper = 'alice/s') =>
  fetch(dataUrl(server.base, scraper, format, params), { headers });

/** The Vary header's fields, lower-cased. */
const vary = (res: Response) => (res.headers.get('vary') ?? '').toLowerCase().split(/,\s*/).filter(Boolean);

function assertNamesOrigin(res: Response, origin: string, what: string): void {
  assert.equal(res.headers.get('access-control-allow-origin'), origin, what);
  assert.ok(vary(res).includes('origin'), `${what}: Vary: Origin`);
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /ETag/, what);
}

async function assertRefused(res: Response, sent: string | undefined, what: string): Promise<void> {
  assert.equal(res.status, 403, what);
  const expected = errors.keyOrigin(sent);
  assert.equal(expected.code, 'SIPHON_ERR_KEY_ORIGIN');
  assert.deepEqual(await res.json(), { error: expected.message }, what);
}

describe('from one of its origins', () => {
  test('told by the Origin header (fetch): rows, with CORS naming that origin and Vary: Origin', async () => {
    for (const origin of [maps, local]) {
      const res = await get(query, { 'x-api-key': originKey, origin });
      assert.equal(res.status, 200, origin);
      assert.deepEqual(await res.json(), rows);
      assertNamesOrigin(res, origin, origin);
      assert.ok(vary(res).includes('accept-encoding'), 'Vary keeps Accept-Encoding');
    }
  });

  test('told by the Referer alone (a <script> tag): rows, JSONP too', async () => {
    const referer = `${maps}/parks/map.html?zoom=3`;
    const res = await get(query, { 'x-api-key': originKey, referer });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), rows);
    assertNamesOrigin(res, maps, 'referer');
    const jsonp = await get({ ...query, key: originKey, callback: 'show' }, { referer });
    assert.equal(jsonp.status, 200);
    assert.equal(await jsonp.text(), '/**/show([\n{"title":"Bar"}\n,{"title":"Foo"}\n]);');
  });

  test('every format, HEAD, a 304 and errors after the key (bad SQL, unknown scraper) name the origin too', async () => {
    const headers = { 'x-api-key': originKey, origin: maps };
    for (const format of ['csv', 'ndjson', 'sqlite']) {
      const res = await get(format === 'sqlite' ? {} : query, headers, format);
      assert.equal(res.status, 200, format);
      assertNamesOrigin(res, maps, format);
      await res.arrayBuffer();
    }
    const head = await fetch(dataUrl(server.base, 'alice/s', 'csv', query), { method: 'HEAD', headers });
    assertNamesOrigin(head, maps, 'HEAD');
    const first = await get(query, headers);
    await first.text();
    const again = await get(query, { ...headers, 'if-none-match': first.headers.get('etag')!, 'cache-control': 'max-age=0' });
    assert.equal(again.status, 304);
    assertNamesOrigin(again, maps, '304');
    for (const [what, res, status] of [
      ['bad SQL', await get({ query: 'select * from nope' }, headers), 400],
      ['unknown scraper', await get(query, headers, 'json', 'alice/nothing'), 404],
      ['unknown format', await get(query, headers, 'xml'), 404],
    ] as [string, Response, number][]) {
      assert.equal(res.status, status, what);
      assertNamesOrigin(res, maps, what);
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    }
  });
});

describe('from anywhere else', () => {
  test('another origin is refused 403, by Origin or by Referer, and the Origin wins over the Referer', async () => {
    await assertRefused(
      await get(query, { 'x-api-key': originKey, origin: 'https://elsewhere.example' }),
      'https://elsewhere.example',
      'Origin',
    );
    await assertRefused(
      await get(query, { 'x-api-key': originKey, referer: 'https://elsewhere.example/page' }),
      'https://elsewhere.example',
      'Referer',
    );
    // Same host, another scheme or port: another origin.
    await assertRefused(await get(query, { 'x-api-key': originKey, origin: 'http://maps.example.org' }), 'http://maps.example.org', 'http');
    await assertRefused(await get(query, { 'x-api-key': originKey, origin: 'http://localhost:8081' }), 'http://localhost:8081', 'port');
    await assertRefused(
      await get(query, { 'x-api-key': originKey, origin: 'https://elsewhere.example', referer: `${maps}/` }),
      'https://elsewhere.example',
      'Origin over Referer',
    );
  });

  test('a request that says neither where it comes from (no Origin, no Referer, or an opaque origin) is refused', async () => {
    await assertRefused(await get(query, { 'x-api-key': originKey }), undefined, 'no header');
    await assertRefused(await get({ ...query, key: originKey }), undefined, 'key in the URL, no header');
    await assertRefused(await get(query, { 'x-api-key': originKey, origin: 'null' }), 'null', 'Origin: null');
    await assertRefused(await get(query, { 'x-api-key': originKey, referer: 'not a url' }), 'null', 'a Referer that is no URL');
  });

  test('a JSONP call from elsewhere gets the refusal in its callback', async () => {
    for (const [headers, sent] of [
      [{ referer: 'https://elsewhere.example/page.html' }, 'https://elsewhere.example'],
      [{}, undefined],
    ] as [Record<string, string>, string | undefined][]) {
      const res = await get({ ...query, key: originKey, callback: 'show' }, headers);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), `/**/show(${JSON.stringify({ error: errors.keyOrigin(sent).message, status: 403 })});`);
    }
  });

  test('a refusal lets the page read why (any origin), and is not a download', async () => {
    const before = (await writtenDownloads(server)).length;
    const res = await get(query, { 'x-api-key': originKey, origin: 'https://elsewhere.example' });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    await res.text();
    assert.equal((await writtenDownloads(server)).length, before);
  });

  test('the key is checked before its origin: a revoked origin key is 401 from anywhere', async () => {
    const revoked = await server.catalog.createKey('alice', { origins: [maps] });
    await server.catalog.revokeKey(revoked);
    assert.equal((await get(query, { 'x-api-key': revoked, origin: maps })).status, 401);
    assert.equal((await get(query, { 'x-api-key': revoked, origin: 'https://elsewhere.example' })).status, 401);
  });
});

describe('other keys and the preflight', () => {
  test('a key without origins is answered with Access-Control-Allow-Origin: * from anywhere, without Vary: Origin', async () => {
    for (const headers of [{ origin: maps }, { origin: 'https://elsewhere.example' }, {}] as Record<string, string>[]) {
      const res = await get(query, { 'x-api-key': plainKey, ...headers });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.ok(!vary(res).includes('origin'));
      await res.text();
    }
  });

  test('the preflight carries no key and still allows any origin', async () => {
    const res = await fetch(`${server.base}/alice/s/data.json`, {
      method: 'OPTIONS',
      headers: { origin: maps, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });
});

describe('publishing', () => {
  const refusals = () => publishRefusals(server.logs()).map((l) => l.code);

  test('an origin key cannot publish, from its origin (read-only) or from elsewhere (origin), and nothing changes', async () => {
    const before = await readVersion(server.base, 'alice/plants', plainKey);
    const body = readFileSync(versionDb(2));
    for (const [headers, code] of [
      [{ origin: maps }, 'SIPHON_ERR_KEY_READ_ONLY'],
      [{ referer: `${local}/admin` }, 'SIPHON_ERR_KEY_READ_ONLY'],
      [{}, 'SIPHON_ERR_KEY_ORIGIN'],
      [{ origin: 'https://elsewhere.example' }, 'SIPHON_ERR_KEY_ORIGIN'],
    ] as [Record<string, string>, string][]) {
      const earlier = refusals().length;
      const res = await putBody(server.base, 'alice/plants', body, {
        'x-api-key': originKey,
        'content-type': 'application/vnd.sqlite3',
        ...headers,
      });
      assert.equal(res.status, 403, code);
      await res.text();
      assert.deepEqual(refusals().slice(earlier), [code]);
    }
    assert.deepEqual(await readVersion(server.base, 'alice/plants', plainKey), before);
    assert.equal((await server.store.findScraper('alice', 'plants'))!.data.version, 1);
  });
});
