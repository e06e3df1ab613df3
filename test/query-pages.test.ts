/**
 * Pages of any query on the data API: `page_size` with a `Link: <…>; rel="next"` while rows
 * follow, each row once over all the pages, the body in its format's usual shape; a token of an
 * older data version is a 409, one changed or given for another query a 400.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
const rowCount = 10_000;

const tableSql = (rows: number) => `create table t (id integer primary key, v text);
  with recursive c(x) as (select 1 union all select x + 1 from c where x < ${rows})
  insert into t select x, 'v' || x from c;`;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  await server.catalog.addScraper('alice/many', makeDb(server.dataDir, 'many.sqlite', tableSql(rowCount)), {
    isPrivate: false,
    description: '',
  });
});
after(() => server.close());

const url = (format: string, params: Record<string, string>) => dataUrl(server.base, 'alice/many', format, { key, ...params });

/** The URL in a `Link: <url>; rel="next"` header, the key added back (a link never holds it). */
function nextOf(res: Response): string | undefined {
  const link = res.headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  assert.ok(match, link);
  assert.doesNotMatch(match[1]!, /key=|sph_/);
  const next = new URL(match[1]!);
  next.searchParams.set('key', key);
  return next.toString();
}

async function ok(target: string): Promise<{ res: Response; text: string }> {
  const res = await fetch(target);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return { res, text };
}

/** Every page from `first` on: each page's rows, read by `rowsOf`. */
async function allPages(first: string, rowsOf: (text: string) => unknown[]): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  for (let target: string | undefined = first; target !== undefined;) {
    const { res, text } = await ok(target);
    pages.push(rowsOf(text));
    target = nextOf(res);
  }
  return pages;
}

// No ORDER BY, a trailing ; and a trailing comment: the query as a client might write it.
const query = `select id, v from t where id % 1 = 0; -- every row;`;

test('paging through 10,000 rows of a query as json returns each row once, a bare array a page', async () => {
  const pages = await allPages(url('json', { query, page_size: '1000' }), (text) => JSON.parse(text) as unknown[]);
  assert.equal(pages.length, 10);
  assert.ok(pages.every((p) => p.length === 1000));
  const ids = pages.flat().map((r) => (r as { id: number }).id);
  assert.equal(new Set(ids).size, rowCount);
  assert.deepEqual(
    [...ids].sort((a, b) => a - b),
    Array.from({ length: rowCount }, (_, i) => i + 1),
  );
});

test('ndjson and csv page the same way, the last page short', async () => {
  const ndjson = await allPages(url('ndjson', { query: 'select id from t', page_size: '3000' }), (text) =>
    text.split('\n').filter((l) => l !== ''),
  );
  assert.deepEqual(
    ndjson.map((p) => p.length),
    [3000, 3000, 3000, 1000],
  );
  const csv = await allPages(url('csv', { query: 'select id from t', page_size: '4000', excel: '1' }), (text) =>
    text.split('\r\n').slice(1, -1),
  );
  assert.deepEqual(
    csv.map((p) => p.length),
    [4000, 4000, 2000],
  );
  assert.equal(new Set(csv.flat()).size, rowCount);
});

test("a page on another origin's web page can read its Link", async () => {
  const res = await fetch(url('json', { query: 'select id from t', page_size: '10' }), {
    headers: { origin: 'https://elsewhere.example' },
  });
  await res.arrayBuffer();
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /(^|, )Link(,|$)/);
  assert.ok(nextOf(res));
});

test('without page_size nothing changes: every row, no Link', async () => {
  const { res, text } = await ok(url('json', { query: 'select id from t' }));
  assert.equal(res.headers.get('link'), null);
  assert.equal((JSON.parse(text) as unknown[]).length, rowCount);
  const one = await ok(url('json', { query: 'select id from t limit 5', page_size: '5' }));
  assert.equal(one.res.headers.get('link'), null, 'a page with no rows after it has no next');
});

test('a publish between two pages makes the next page a 409 in Siphon shape', async () => {
  await server.catalog.addScraper('alice/moving', makeDb(server.dataDir, 'moving.sqlite', tableSql(50)), {
    isPrivate: false,
    description: '',
  });
  const first = await ok(dataUrl(server.base, 'alice/moving', 'json', { key, query: 'select id from t', page_size: '10' }));
  const next = nextOf(first.res)!;
  assert.equal((await fetch(next)).status, 200);
  await server.catalog.publish('alice/moving', makeDb(server.dataDir, 'moving-2.sqlite', tableSql(60)));
  const stale = await fetch(next);
  assert.equal(stale.status, 409);
  assert.equal(stale.headers.get('siphon-error-code'), 'SIPHON_ERR_PAGE_TOKEN_STALE');
});

test('a token changed by hand, or used with another query or page size, is a 400', async () => {
  const first = await ok(url('json', { query: 'select id from t', page_size: '100' }));
  const token = new URL(nextOf(first.res)!).searchParams.get('next')!;
  const targets = [
    url('json', { query: 'select id from t', page_size: '100', next: `${token}x` }),
    url('json', {
      query: 'select id from t',
      page_size: '100',
      next: `${token.slice(0, 4)}${token[4] === 'A' ? 'B' : 'A'}${token.slice(5)}`,
    }),
    url('json', { query: 'select v from t', page_size: '100', next: token }),
    url('json', { query: 'select id from t', page_size: '99', next: token }),
    url('json', { query: 'select id from t', next: token }),
  ];
  for (const target of targets) {
    const res = await fetch(target);
    assert.equal(res.status, 400, target);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_PAGE_TOKEN_INVALID', target);
  }
});

test('a page_size that is not 1 to 100,000 is a 400', async () => {
  for (const size of ['0', '-1', 'ten', '100001', '1.5', '']) {
    const res = await fetch(url('json', { query: 'select 1', page_size: size }));
    assert.equal(res.status, 400, size);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_PAGE_SIZE_INVALID', size);
  }
});

test('each page has its own ETag', async () => {
  const first = await ok(url('json', { query: 'select id from t', page_size: '100' }));
  const second = await ok(nextOf(first.res)!);
  assert.notEqual(first.res.headers.get('etag'), second.res.headers.get('etag'));
  const again = await fetch(url('json', { query: 'select id from t', page_size: '100' }), {
    headers: { 'if-none-match': first.res.headers.get('etag')! },
  });
  assert.equal(again.status, 304);
});
