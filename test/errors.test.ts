import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeDb } from './helpers/fixture-db.js';
import { rawExchange } from './helpers/raw-http.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';
import { assertRefused } from './helpers/siphon-answers.js';

let server: TestServer;
let key: string;
let otherKey: string;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  ({ key: otherKey } = await server.catalog.addUser('bob'));
  const db = makeDb(server.dataDir, 'src.sqlite', `create table data (title text); insert into data values ('Foo');`);
  await server.catalog.addScraper('alice/public', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/secret', db, { isPrivate: true, description: '' });
});
after(() => server.close());

async function call(url: string, init?: RequestInit): Promise<{ status: number; type: string | null; body: { error?: string } }> {
  const res = await fetch(url, init);
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { error?: string } };
}

const q = { query: 'select * from data' };

test('every error is {"error": …} as JSON, with its status, whatever the format', async () => {
  const cases: [string, string, Record<string, string>, number, RegExp][] = [
    ['alice/public', 'json', { ...q }, 401, /API key is missing/],
    ['alice/public', 'csv', { ...q }, 401, /API key is missing/],
    ['alice/public', 'sqlite', {}, 401, /API key is missing/],
    ['alice/public', 'json', { ...q, key: '' }, 401, /not valid/],
    ['alice/public', 'ndjson', { ...q, key: 'sph_wrong' }, 401, /not valid/],
    ['alice/nope', 'json', { ...q, key }, 404, /can't find scraper alice\/nope/],
    ['alice/secret', 'json', { ...q, key: otherKey }, 404, /can't find scraper alice\/secret/],
    ['alice/public', 'xml', { ...q, key }, 404, /json, csv, ndjson, sqlite/],
    ['alice/public', 'json', { key }, 400, /No query specified/],
    ['alice/public', 'csv', { key, query: '   ' }, 400, /No query specified/],
    ['alice/public', 'json', { key, query: 'select * frm data' }, 400, /syntax error/],
    ['alice/public', 'json', { key, query: 'select * from nothere' }, 400, /no such table: nothere/],
    ['alice/public', 'csv', { key, query: 'delete from data' }, 400, /read-only SELECT/],
    ['alice/public', 'json', { key, query: 'select 1; select 2' }, 400, /more than one statement/],
    ['alice/public', 'json', { ...q, key, callback: 'alert(1)' }, 400, /callback must be/],
  ];
  for (const [scraper, format, params, status, message] of cases) {
    const res = await call(dataUrl(server.base, scraper, format, params));
    const what = `${scraper} ${format} ${JSON.stringify(params)}`;
    assert.equal(res.status, status, what);
    assert.equal(res.type, 'application/json; charset=utf-8', what);
    assert.match(res.body.error ?? '', message, what);
    assert.deepEqual(Object.keys(res.body), ['error'], what);
  }
});

test('a private scraper is answered exactly like an unknown one', async () => {
  const secret = await call(dataUrl(server.base, 'alice/secret', 'json', { ...q, key: otherKey }));
  const unknown = await call(dataUrl(server.base, 'alice/secreu', 'json', { ...q, key }));
  assert.equal(secret.status, unknown.status);
  assert.equal(secret.body.error!.replace('secret', 'X'), unknown.body.error!.replace('secreu', 'X'));
  assert.equal((await fetch(`${server.base}/alice/secret.json`)).status, 404);
});

test('the key is accepted from X-API-Key and Authorization: Bearer, and a header wins over the parameter', async () => {
  const url = dataUrl(server.base, 'alice/public', 'json', q);
  assert.equal((await fetch(url, { headers: { 'X-API-Key': key } })).status, 200);
  assert.equal((await fetch(url, { headers: { Authorization: `Bearer ${key}` } })).status, 200);
  const withGoodParam = dataUrl(server.base, 'alice/public', 'json', { ...q, key });
  const badHeader = await call(withGoodParam, { headers: { 'X-API-Key': 'sph_bad' } });
  assert.equal(badHeader.status, 401);
  const badBearer = await call(withGoodParam, { headers: { Authorization: 'Bearer sph_bad' } });
  assert.equal(badBearer.status, 401);
  // Any account's key may read any public scraper.
  assert.equal((await fetch(url, { headers: { 'X-API-Key': otherKey } })).status, 200);
});

test('SQL arrives URL-encoded with spaces as + or %20', async () => {
  for (const encoded of ['select+%2A+from+%22data%22+limit+10', 'select%20*%20from%20%22data%22%20limit%2010']) {
    const res = await fetch(`${server.base}/alice/public/data.json?key=${key}&query=${encoded}`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), [{ title: 'Foo' }]);
  }
});

test('unknown paths and malformed URLs are JSON errors, never 5xx', async () => {
  const notFound = await call(`${server.base}/just/some/path`);
  assert.equal(notFound.status, 404);
  const badEncoding = await fetch(`${server.base}/alice/public/data.json?key=${key}&query=%E0%A4%A`);
  assert.ok(badEncoding.status < 500, `status ${badEncoding.status}`);
});

test('no key appears in the logs, not even of refused or failed calls', async () => {
  await fetch(dataUrl(server.base, 'alice/public', 'json', { ...q, key }));
  await fetch(dataUrl(server.base, 'alice/public', 'json', { key, query: 'select nonsense(' }));
  await fetch(dataUrl(server.base, 'alice/nope', 'csv', { ...q, key: otherKey }));
  await fetch(dataUrl(server.base, 'alice/public', 'json', q), { headers: { 'X-API-Key': key } });
  const logs = server.logs();
  assert.match(logs, /alice\/public\/data\.json/, 'requests are logged');
  assert.match(logs, /\[redacted\]/);
  for (const secret of [key, otherKey, key.slice(4)]) assert.ok(!logs.includes(secret), 'a key was logged');
});

// Over the wire as sent (the rest of what Node's parser refuses: http-refusals.test.ts, with no query process).
test('a malformed request behind a query on the same connection is answered after it', async () => {
  const exchange = await rawExchange(
    Number(new URL(server.base).port),
    `GET /alice/public/data.json?key=${key}&query=select+7+as+n HTTP/1.1\r\nHost: x\r\n\r\nGET /he lthz HTTP/1.1\r\nHost: x\r\n\r\n`,
    { responses: 2 },
  );
  assert.equal(exchange.responses.length, 2, exchange.received.toString());
  assert.deepEqual(JSON.parse(exchange.responses[0]!.body.toString()), [{ n: 7 }]);
  const second = exchange.responses[1]!;
  assertRefused(
    { status: second.status, headers: second.headers, body: second.body.toString('utf8') },
    400,
    'SIPHON_ERR_MALFORMED_REQUEST',
    'second',
  );
});

test('a query sent with Expect: 100-continue is answered after the interim 100', async () => {
  const body = `key=${key}&query=select+1`;
  const exchange = await rawExchange(
    Number(new URL(server.base).port),
    `POST /alice/public/data.json HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  assert.equal(exchange.responses.length, 1, exchange.received.toString('latin1'));
  assert.equal(exchange.responses[0]!.status, 200, exchange.responses[0]!.body.toString());
});
