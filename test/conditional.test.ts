/**
 * Conditional requests: ETag and Last-Modified on data responses, 304 for If-None-Match and
 * If-Modified-Since, what a 304 still is (a download), and what changes an ETag.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { runaway } from './helpers/query-pool.js';
import { dataUrl, downloadsFrom, startServer, writtenDownloads, type TestServer } from './helpers/server.js';

const plantsQuery = 'select name, height from plants order by name';

let server: TestServer;
let aliceKey: string;
let bobKey: string;
const sources = tempDir();

before(async () => {
  server = await startServer({ queryTimeoutMs: 2000 });
  ({ key: aliceKey } = await server.catalog.addUser('alice'));
  ({ key: bobKey } = await server.catalog.addUser('bob'));
  const db = makeDb(
    sources,
    'plants.sqlite',
    `create table plants (name text, height real);
    insert into plants values ('fern', 0.5), ('oak', 20);`,
  );
  // Two scrapers with byte-identical data: their ETags must still differ.
  await server.catalog.addScraper('alice/plants', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/twin', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/changing', db, { isPrivate: false, description: '' });
});
after(() => server.close());

/** A GET (or HEAD) in identity coding unless the headers say otherwise (fetch would ask for gzip). */
async function get(
  params: Record<string, string>,
  headers: Record<string, string> = {},
  { scraper = 'alice/plants', format = 'json', method = 'GET' } = {},
): Promise<{ res: Response; body: string }> {
  const res = await fetch(dataUrl(server.base, scraper, format, { key: aliceKey, ...params }), {
    method,
    headers: { 'accept-encoding': 'identity', ...headers },
  });
  return { res, body: await res.text() };
}

const etagOf = async (params: Record<string, string>, options: Parameters<typeof get>[2] = {}, headers = {}) => {
  const { res } = await get(params, headers, options);
  assert.equal(res.status, 200);
  return res.headers.get('etag')!;
};

describe('validators on a data response', () => {
  test('a weak ETag, Last-Modified of the last publish, Cache-Control private, no-cache and Vary: Accept-Encoding', async () => {
    const { res, body } = await get({ query: plantsQuery });
    assert.equal(res.status, 200);
    assert.equal(body, '[\n{"name":"fern","height":0.5}\n,{"name":"oak","height":20.0}\n]');
    assert.match(res.headers.get('etag')!, /^W\/"[\w-]+"$/);
    const scraper = (await server.store.findScraper('alice', 'plants'))!;
    assert.equal(res.headers.get('last-modified'), new Date(scraper.data.updatedAt).toUTCString());
    assert.equal(res.headers.get('cache-control'), 'private, no-cache');
    assert.match(res.headers.get('vary')!, /\bAccept-Encoding\b/i);
  });

  test('the same request gets the same ETag, whoever asks: the key is no part of it', async () => {
    const first = await etagOf({ query: plantsQuery });
    assert.equal(await etagOf({ query: plantsQuery }), first);
    const { res } = await get({ query: plantsQuery, key: bobKey });
    assert.equal(res.headers.get('etag'), first);
  });

  test('the ETag differs per format, query, callback, scraper and content coding', async () => {
    const etags = new Map<string, string>([
      ['json', await etagOf({ query: plantsQuery })],
      ['csv', await etagOf({ query: plantsQuery }, { format: 'csv' })],
      ['ndjson', await etagOf({ query: plantsQuery }, { format: 'ndjson' })],
      ['sqlite', await etagOf({}, { format: 'sqlite' })],
      ['jsonp', await etagOf({ query: plantsQuery, callback: 'cb' })],
      ['jsonp other callback', await etagOf({ query: plantsQuery, callback: 'other' })],
      ['other query', await etagOf({ query: 'select name from plants' })],
      ['same query, other spacing', await etagOf({ query: `${plantsQuery} ` })],
      ['twin scraper, same data', await etagOf({ query: plantsQuery }, { scraper: 'alice/twin' })],
      ['twin sqlite', await etagOf({}, { scraper: 'alice/twin', format: 'sqlite' })],
      ['gzip', await etagOf({ query: plantsQuery }, {}, { 'accept-encoding': 'gzip' })],
      ['br', await etagOf({ query: plantsQuery }, {}, { 'accept-encoding': 'br' })],
    ]);
    assert.equal(new Set(etags.values()).size, etags.size, JSON.stringify(Object.fromEntries(etags)));
    assert.equal(etags.get('gzip'), etags.get('json')!.replace(/"$/, '-gzip"'));
    assert.equal(etags.get('br'), etags.get('json')!.replace(/"$/, '-br"'));
  });
});

describe('If-None-Match', () => {
  test('304 with no body for the current ETag, its strong form, within a list, and for *', async () => {
    const etag = await etagOf({ query: plantsQuery });
    const strong = etag.replace(/^W\//, '');
    for (const header of [etag, strong, `"nope", ${etag}`, `W/"a",${strong} , "b"`, '*']) {
      const { res, body } = await get({ query: plantsQuery }, { 'if-none-match': header });
      assert.equal(res.status, 304, header);
      assert.equal(body, '', header);
      assert.equal(res.headers.get('etag'), etag, header);
      assert.equal(res.headers.get('cache-control'), 'private, no-cache');
      assert.match(res.headers.get('vary')!, /\bAccept-Encoding\b/i);
      // Nothing that describes a body it does not have.
      assert.equal(res.headers.get('content-type'), null);
      assert.equal(res.headers.get('content-disposition'), null);
    }
  });

  test('200 with the body for any other ETag', async () => {
    const etag = await etagOf({ query: plantsQuery });
    const other = await etagOf({ query: 'select name from plants' });
    for (const header of [other, '"nope"', etag.replace(/"$/, 'x"'), `${etag.replace(/"$/, '-gzip"')}`]) {
      const { res, body } = await get({ query: plantsQuery }, { 'if-none-match': header });
      assert.equal(res.status, 200, header);
      assert.equal(JSON.parse(body).length, 2);
    }
  });

  test('each coding revalidates its own ETag: a gzip ETag matches only a gzip request', async () => {
    const gzipEtag = await etagOf({ query: plantsQuery }, {}, { 'accept-encoding': 'gzip' });
    const { res } = await get({ query: plantsQuery }, { 'accept-encoding': 'gzip', 'if-none-match': gzipEtag });
    assert.equal(res.status, 304);
    assert.equal(res.headers.get('content-encoding'), null);
    const identity = await get({ query: plantsQuery }, { 'if-none-match': gzipEtag });
    assert.equal(identity.res.status, 200);
  });

  test('works for every format, HEAD included', async () => {
    for (const [format, params] of [
      ['csv', { query: plantsQuery }],
      ['ndjson', { query: plantsQuery }],
      ['sqlite', {}],
      ['json', { query: plantsQuery, callback: 'cb' }],
    ] as const) {
      const etag = await etagOf(params, { format });
      for (const method of ['GET', 'HEAD']) {
        const { res, body } = await get(params, { 'if-none-match': etag }, { format, method });
        assert.equal(res.status, 304, `${method} ${format}`);
        assert.equal(body, '');
        assert.equal(res.headers.get('content-length'), null, `${method} ${format}: a 304 has no Content-Length`);
      }
    }
  });

  test('wins over If-Modified-Since, whichever way that would go', async () => {
    const { res: first } = await get({ query: plantsQuery });
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    const longAgo = new Date(0).toUTCString();
    const matching = await get({ query: plantsQuery }, { 'if-none-match': etag, 'if-modified-since': longAgo });
    assert.equal(matching.res.status, 304);
    const other = await get({ query: plantsQuery }, { 'if-none-match': '"nope"', 'if-modified-since': lastModified });
    assert.equal(other.res.status, 200);
  });

  test('Cache-Control: no-cache on the request still revalidates (fetch() adds it to conditional requests)', async () => {
    const etag = await etagOf({ query: plantsQuery });
    const reloads: Record<string, string>[] = [{ 'cache-control': 'no-cache', pragma: 'no-cache' }, { 'cache-control': 'max-age=0' }];
    for (const headers of reloads) {
      const { res } = await get({ query: plantsQuery }, { 'if-none-match': etag, ...headers });
      assert.equal(res.status, 304, JSON.stringify(headers));
    }
  });
});

describe('If-Modified-Since', () => {
  test('304 when the data has not changed since, 200 when it has or the date is not a date', async () => {
    const { res } = await get({ query: plantsQuery });
    const lastModified = new Date(res.headers.get('last-modified')!);
    const at = (ms: number) => new Date(lastModified.getTime() + ms).toUTCString();
    const cases: [string, number][] = [
      [at(0), 304],
      [at(1000), 304],
      [at(86_400_000), 304],
      [at(-1000), 200],
      [new Date(0).toUTCString(), 200],
      ['yesterday', 200],
      ['', 200],
      ['Sun, 32 Foo 99999 99:99:99 GMT', 200],
    ];
    for (const [header, status] of cases) {
      const { res: conditional, body } = await get({ query: plantsQuery }, { 'if-modified-since': header });
      assert.equal(conditional.status, status, JSON.stringify(header));
      if (status === 304) assert.equal(body, '');
      else assert.equal(JSON.parse(body).length, 2);
    }
  });
});

describe('a 304 is a download, and is decided before anything runs', () => {
  test('recorded with status 304, no rows and no bytes; the query is not run', async () => {
    const from = (await writtenDownloads(server)).length;
    // The runaway could only end at the time limit (400): a 304 proves it never ran.
    const { res, body } = await get({ query: runaway }, { 'if-none-match': '*' });
    assert.equal(res.status, 304);
    assert.equal(body, '');
    const [row] = await downloadsFrom(server, from, 1);
    assert.deepEqual(
      { status: row!.status, rows: row!.rows, bytes: row!.bytes, query: row!.query, format: row!.format },
      { status: 304, rows: null, bytes: 0, query: runaway, format: 'json' },
    );
  });

  test('a bad key, scraper, format, callback or SQL gets its error, not a 304', async () => {
    const always = { 'if-none-match': '*', 'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString() };
    const cases: [string, Record<string, string>, Parameters<typeof get>[2], number][] = [
      ['bad key', { key: `${aliceKey}x`, query: plantsQuery }, {}, 401],
      ['unknown scraper', { query: plantsQuery }, { scraper: 'alice/nothing' }, 404],
      ['unknown format', { query: plantsQuery }, { format: 'xml' }, 404],
      ['bad callback', { query: plantsQuery, callback: '1bad' }, {}, 400],
      ['no query', {}, {}, 400],
      ['not a read', { query: 'pragma user_version = 1' }, {}, 400],
    ];
    for (const [name, params, options, status] of cases) {
      const { res, body } = await get(params, always, options);
      assert.equal(res.status, status, name);
      assert.match(body, /"error"/, name);
      assert.equal(res.headers.get('etag'), null, `${name}: errors carry no validators`);
    }
  });
});

describe('publishing', () => {
  test('changes the ETag at once: the old one gets 200 with the new data, the new one 304', async () => {
    const query = 'select name from plants order by name';
    const before = await get({ query }, {}, { scraper: 'alice/changing' });
    const oldEtag = before.res.headers.get('etag')!;
    const oldFileEtag = await etagOf({}, { scraper: 'alice/changing', format: 'sqlite' });
    const fresh = makeDb(
      sources,
      'plants-2.sqlite',
      `create table plants (name text, height real);
      insert into plants values ('ash', 30);`,
    );
    await server.catalog.publish('alice/changing', fresh);

    const after = await get({ query }, { 'if-none-match': oldEtag }, { scraper: 'alice/changing' });
    assert.equal(after.res.status, 200);
    assert.deepEqual(JSON.parse(after.body), [{ name: 'ash' }]);
    const newEtag = after.res.headers.get('etag')!;
    assert.notEqual(newEtag, oldEtag);
    const scraper = (await server.store.findScraper('alice', 'changing'))!;
    assert.equal(after.res.headers.get('last-modified'), new Date(scraper.data.updatedAt).toUTCString());

    const again = await get({ query }, { 'if-none-match': newEtag }, { scraper: 'alice/changing' });
    assert.equal(again.res.status, 304);
    const file = await get({}, { 'if-none-match': oldFileEtag }, { scraper: 'alice/changing', format: 'sqlite' });
    assert.equal(file.res.status, 200);
    assert.notEqual(file.res.headers.get('etag'), oldFileEtag);
  });
});
