/**
 * A query up to the documented length works whatever it holds, by GET and by POST (form or JSON);
 * one character more is refused with its code. A POST is the same call as a GET: same formats,
 * errors, CORS and downloads, never a 304.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import vm from 'node:vm';
import { requestLimits } from '../src/limits/request-size.js';
import { startPlanningServer } from './helpers/browser.js';
import { dataUrl, writtenDownloads, type TestServer } from './helpers/server.js';
import { assertRefused, fetchAnswer } from './helpers/siphon-answers.js';

const maxChars = 100_000;
let server: TestServer;
let key: string;
const endpoint = (format: string, query = '') => `${server.base}/alice/planning/data.${format}${query}`;

before(async () => {
  ({ server, key } = await startPlanningServer());
});
after(() => server.close());

/**
 * `select '<filler>' as v` of exactly `length` UTF-16 units, the filler made of `unit` repeated
 * (a quote doubled, as SQL escapes it), and the value SQLite gives back for it.
 */
function queryOf(length: number, unit: string): { sql: string; value: string } {
  const head = "select '";
  const tail = "' as v";
  const room = length - head.length - tail.length;
  const literal = unit === "'" ? "''" : unit;
  const count = Math.floor(room / literal.length);
  // Any units left over are spaces before the literal, which SQL ignores.
  const sql = `${' '.repeat(room - count * literal.length)}${head}${literal.repeat(count)}${tail}`;
  assert.equal(sql.length, length);
  return { sql, value: unit.repeat(count) };
}

type Send = (sql: string) => Promise<Response>;
const byGet: Send = (sql) => fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query: sql }));
const byForm: Send = (sql) =>
  fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key, query: sql }),
  });
const byJson: Send = (sql) =>
  fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ key, query: sql }),
  });

// ASCII that encoding grows (+, %, &, =, quotes), 3-byte UTF-8 (9 bytes a unit once percent-encoded,
// the most there is), and characters beyond U+FFFF (two units each).
const fillers: [string, string][] = [
  ['punctuation', '\'+%&="'],
  ['euro signs', '€'],
  ['CJK', '漢'],
  ['emoji', '😀'],
];

for (const [name, send] of [
  ['GET', byGet],
  ['POST form', byForm],
  ['POST JSON', byJson],
] as const) {
  test(`${name}: a ${maxChars.toLocaleString('en')}-character query works whatever its characters; one more is SIPHON_ERR_QUERY_TOO_LONG`, async () => {
    for (const [what, unit] of fillers) {
      for (const char of [...unit]) {
        const { sql, value } = queryOf(maxChars, char);
        const res = await send(sql);
        const text = await res.text();
        assert.equal(res.status, 200, `${what} ${char}: ${text.slice(0, 200)}`);
        assert.deepEqual(JSON.parse(text), [{ v: value }], `${what} ${char}`);
      }
      const over = queryOf(maxChars + 1, [...unit][0]!);
      assertRefused(await fetchAnswer(await send(over.sql)), 400, 'SIPHON_ERR_QUERY_TOO_LONG', `${what}, one over`);
    }
  });
}

test('the longest query in the most costly characters fits the URL bound, with room to spare', () => {
  const { sql } = queryOf(maxChars, '€');
  const url = `/alice/planning/data.json?${new URLSearchParams({ key, query: sql, callback: 'a'.repeat(128) })}`;
  assert.ok(url.length <= requestLimits(maxChars).maxUrlBytes, `${url.length} bytes`);
});

test('a POST body over its bound is 413, by Content-Length or once it has come', async () => {
  const { maxBodyBytes } = requestLimits(maxChars);
  const big = `key=${key}&query=${'x'.repeat(maxBodyBytes)}`;
  const sized = await fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: big,
  });
  assertRefused(await fetchAnswer(sized), 413, 'SIPHON_ERR_BODY_TOO_LARGE', 'by Content-Length');
  // A stream has no Content-Length: it is sent chunked and refused as it passes the bound.
  const stream = new Blob([big]).stream();
  const chunked = await fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  assertRefused(await fetchAnswer(chunked), 413, 'SIPHON_ERR_BODY_TOO_LARGE', 'chunked');
});

test('a bad JSON body is 400, a body of another type 415, and neither echoes the body', async () => {
  const post = (type: string | undefined, body: string) =>
    fetch(endpoint('json'), {
      method: 'POST',
      headers: type ? { 'content-type': type } : {},
      body,
    }).then(fetchAnswer);
  const bad: [string | undefined, string, number, string][] = [
    ['application/json', `{"key": "${key}", "query": `, 400, 'SIPHON_ERR_BODY_INVALID'],
    ['application/json', ' \n', 400, 'SIPHON_ERR_BODY_INVALID'],
    ['application/json', `["${key}"]`, 400, 'SIPHON_ERR_BODY_INVALID'],
    ['application/json', `{"key": "${key}", "query": 1}`, 400, 'SIPHON_ERR_BODY_INVALID'],
    ['application/json', `{"key": ["${key}"], "query": "select 1"}`, 400, 'SIPHON_ERR_BODY_INVALID'],
    ['text/plain', `key=${key}&query=select+1`, 415, 'SIPHON_ERR_CONTENT_TYPE'],
    [
      'multipart/form-data; boundary=x',
      `--x\r\nContent-Disposition: form-data; name="key"\r\n\r\n${key}\r\n--x--\r\n`,
      415,
      'SIPHON_ERR_CONTENT_TYPE',
    ],
    [undefined, `key=${key}&query=select+1`, 415, 'SIPHON_ERR_CONTENT_TYPE'],
  ];
  for (const [type, body, status, code] of bad) {
    const answer = await post(type, body);
    const message = assertRefused(answer, status, code, `${type} ${body.slice(0, 30)}`);
    assert.ok(!message.includes(key), 'the key is echoed');
  }
  // JSON that is not UTF-8 (a lone 0xFF byte).
  const latin = await fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
  });
  assertRefused(await fetchAnswer(latin), 400, 'SIPHON_ERR_BODY_INVALID', 'not UTF-8');
});

test('POST gives every format, JSONP included, the same body as the same GET', async () => {
  const sql = 'select title, content, link, date, n, r from "data" order by n';
  const params: [string, Record<string, string>][] = [
    ['json', { query: sql }],
    ['json', { query: sql, callback: 'show.rows' }],
    ['csv', { query: sql }],
    ['ndjson', { query: sql }],
    ['sqlite', {}],
  ];
  for (const [format, p] of params) {
    const get = await fetch(dataUrl(server.base, 'alice/planning', format, { key, ...p }));
    const getBody = Buffer.from(await get.arrayBuffer());
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', new URLSearchParams({ key, ...p }).toString()],
      ['application/json', JSON.stringify({ key, ...p })],
    ] as const) {
      const post = await fetch(endpoint(format), { method: 'POST', headers: { 'content-type': type }, body });
      const what = `${format} ${JSON.stringify(p).slice(0, 40)} as ${type}`;
      assert.equal(post.status, 200, what);
      assert.equal(post.headers.get('content-type'), get.headers.get('content-type'), what);
      assert.equal(post.headers.get('content-disposition'), get.headers.get('content-disposition'), what);
      assert.equal(post.headers.get('access-control-allow-origin'), '*', what);
      assert.equal(post.headers.get('etag'), get.headers.get('etag'), what);
      assert.ok(Buffer.from(await post.arrayBuffer()).equals(getBody), what);
    }
  }
  // The JSONP body runs, calling the callback with the rows.
  const jsonp = await fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key, query: 'select 1 as one', callback: 'cb' }),
  });
  const calls: unknown[] = [];
  vm.runInNewContext(await jsonp.text(), { cb: (rows: unknown) => calls.push(structuredClone(rows)) });
  assert.deepEqual(calls, [[{ one: 1 }]]);
});

test("POST atom: the feed, whose self link is the GET URL of the same feed (the POST's URL lacks the query)", async () => {
  const sql = 'select title, content, link, date from "data"';
  const res = await fetch(endpoint('atom'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key, query: sql }),
  });
  const feed = await res.text();
  assert.equal(res.status, 200, feed);
  assert.equal(res.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
  assert.equal([...feed.matchAll(/<entry>/g)].length, 4);
  const self = /<link rel="self" [^>]*href="([^"]+)"/.exec(feed)?.[1]?.replaceAll('&amp;', '&');
  assert.equal(self, `${server.base}/alice/planning/data.atom?${new URLSearchParams({ query: sql })}`);
  assert.ok(!feed.includes(key));
});

test('a parameter in the body wins over the same one in the URL; the others in the URL still count', async () => {
  const url = endpoint('json', `?${new URLSearchParams({ key: 'sph_wrong', query: 'select 1 as url', callback: 'fromUrl' })}`);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key, query: 'select 2 as body' }),
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '/**/fromUrl([\n{"body":2}\n]);');
  // A header key still wins over both.
  const header = await fetch(endpoint('json'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': 'sph_wrong' },
    body: new URLSearchParams({ key, query: 'select 1' }),
  });
  assertRefused(await fetchAnswer(header), 401, 'SIPHON_ERR_KEY_INVALID', 'bad header key');
  // A POST without a body takes its parameters from the URL alone.
  const empty = await fetch(endpoint('json', `?${new URLSearchParams({ key, query: 'select 3 as n' })}`), { method: 'POST' });
  assert.deepEqual(await empty.json(), [{ n: 3 }]);
});

test('a POST is never answered 304: its conditional headers are ignored, its ETag still sent', async () => {
  const sql = 'select count(*) as n from "data"';
  const get = await fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query: sql }));
  const etag = get.headers.get('etag')!;
  assert.equal(
    (await fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query: sql }), { headers: { 'if-none-match': etag } })).status,
    304,
  );
  const post = await fetch(endpoint('json'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'if-none-match': etag,
      'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString(),
    },
    body: JSON.stringify({ key, query: sql }),
  });
  assert.equal(post.status, 200);
  assert.equal(post.headers.get('etag'), etag);
  assert.equal(post.headers.get('cache-control'), 'private, no-cache');
  assert.deepEqual(await post.json(), [{ n: 4 }]);
});

test('the preflight of a cross-origin POST of JSON allows it', async () => {
  const res = await fetch(endpoint('json'), {
    method: 'OPTIONS',
    headers: {
      origin: 'https://elsewhere.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-api-key',
    },
  });
  assert.equal(res.status, 204);
  assert.match(res.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
  const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
  assert.ok(allowed.includes('content-type') && allowed.includes('x-api-key'));
});

test('a POST is a download like a GET, recorded with its query and format', async () => {
  const marker = `select 'post-download-${Date.now()}' as m`;
  await (
    await fetch(endpoint('csv'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key, query: marker }),
    })
  ).text();
  await (
    await fetch(endpoint('json'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key, query: marker, callback: 'cb' }),
    })
  ).text();
  const recorded = (await writtenDownloads(server)).filter((d) => d.query === marker);
  assert.deepEqual(
    recorded.map((d) => [d.format, d.status, d.rows]),
    [
      ['csv', 200, 1],
      ['jsonp', 200, 1],
    ],
  );
});
