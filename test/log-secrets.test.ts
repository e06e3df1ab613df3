/**
 * No key reaches the log, whatever its spelling or place: a run makes every kind of request with
 * keys in every parameter spelling, header and body, good and bad, and reads every line logged.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hashKey, newKey } from '../src/keys.js';
import { requestLimits } from '../src/limits/request-size.js';
import { planningSql } from './helpers/browser.js';
import { makeDb } from './helpers/fixture-db.js';
import { rawExchange } from './helpers/raw-http.js';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let port: number;
/** Every key this run made or sent: valid, read-only, revoked, unknown. */
const secrets: string[] = [];
/** Keys used once each, so that the rate limit (below) refuses only the greedy key. */
const fresh: string[] = [];
let greedy: string;
let revoked: string;
const perMinute = 20;

before(async () => {
  // A rate limit, so that 429s are among the answers; any proxy trusted, so that X-Forwarded-For is read.
  server = await startServer({ rateLimitPerMinute: perMinute, clientIdleTimeoutMs: 1000, trustProxy: true });
  port = Number(new URL(server.base).port);
  secrets.push((await server.catalog.addUser('alice')).key);
  await server.catalog.addScraper('alice/planning', makeDb(server.dataDir, 'planning.sqlite', planningSql), {
    isPrivate: false,
    description: '',
  });
  for (let i = 0; i < 150; i += 1) fresh.push(await server.catalog.createKey('alice', { readOnly: i % 2 === 0 }));
  greedy = await server.catalog.createKey('alice');
  revoked = await server.catalog.createKey('alice');
  await server.catalog.revokeKey(revoked);
  secrets.push(...fresh, greedy, revoked, newKey(), newKey(), newKey());
});
after(() => server.close());

/** A key not used before (its rate-limit count starts at zero). */
function nextKey(): string {
  const key = fresh.pop();
  assert.ok(key, 'the test ran out of fresh keys');
  return key;
}

/** Headers where a careless client or proxy puts a key, each holding one from `key`. */
const keyedHeaders = (key: () => string): Record<string, string>[] => [
  { 'x-forwarded-for': key() },
  { 'x-forwarded-for': `203.0.113.7, ${key()}` },
  { forwarded: `for=${key()}` },
  { 'x-forwarded-host': key() },
  { 'x-forwarded-proto': key() },
  { 'x-real-ip': key() },
  { referer: `https://example.org/page?key=${key()}` },
  { origin: `https://${key()}.example.org` },
  { 'x-request-id': key() },
  { 'x-request-id': `req-${key()}` },
  { cookie: `key=${key()}` },
  { 'user-agent': `curl ${key()}` },
];

/** Every character percent-encoded. */
const encodeAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

const sql = 'select title, content, link, date from "data" limit 2';
const q = encodeURIComponent(sql);

test('a run of every kind of request, with keys everywhere, logs none of them nor their hashes', async () => {
  const unknown = secrets.at(-1)!;
  const base = server.base;
  const data = (format: string) => `${base}/alice/planning/data.${format}`;
  const calls: Promise<unknown>[] = [];
  const get = (url: string, init?: RequestInit) =>
    calls.push(
      fetch(url, init)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined),
    );

  // The key parameter in every spelling, decoded or not, good, unknown and revoked.
  for (const name of ['key', '%6Bey', 'k%65y', 'ke%79', '%6B%65%79', 'KEY', 'Key', 'api_key', 'API_KEY', 'apikey', 'token', 'sph']) {
    for (const k of [nextKey(), unknown, revoked]) get(`${data('json')}?${name}=${k}&query=${q}`);
  }
  // Repeated, fully encoded, after a fragment mark, in the path, bare as a parameter name.
  get(`${data('json')}?key=${nextKey()}&key=${unknown}&query=${q}`);
  get(`${data('csv')}?key=${encodeAll(nextKey())}&query=${q}`);
  get(`${data('json')}#?key=${nextKey()}&query=${q}`);
  get(`${base}/alice/${nextKey()}/data.json?query=${q}`);
  get(`${base}/alice/planning/data.json/${encodeAll(nextKey())}`);
  get(`${data('json')}?${nextKey()}&query=${q}`);
  get(`${data('json')}?${encodeAll(nextKey())}=1&query=${q}`);
  // Every format, by parameter and by header, GET and HEAD.
  for (const format of ['json', 'csv', 'ndjson', 'atom', 'sqlite', 'xml', '']) {
    get(`${base}/alice/planning/data${format ? `.${format}` : ''}?key=${nextKey()}&query=${q}`);
    get(`${data(format || 'json')}?query=${q}`, { headers: { 'x-api-key': nextKey() } });
    get(`${data(format || 'json')}?query=${q}`, { method: 'HEAD', headers: { authorization: `Bearer ${nextKey()}` } });
  }
  // Keys in headers no one should log, on the data API and on a page.
  for (const headers of keyedHeaders(nextKey)) {
    get(`${data('json')}?key=${nextKey()}&query=${q}`, { headers });
    get(`${base}/alice/planning`, { headers });
  }
  get(`${data('json')}?key=${nextKey()}&query=${q}&callback=show.rows`);
  get(`${data('json')}?key=${nextKey()}&query=${q}&callback=${encodeURIComponent('alert(1)')}`);
  // Errors of every kind the routes give: SQL, too long, missing, not a read, unknown scraper, revoked.
  for (const query of ['select nonsense(', 'x'.repeat(100_001), '', 'delete from data', 'pragma user_version']) {
    get(`${data('json')}?key=${nextKey()}&query=${encodeURIComponent(query)}`);
  }
  get(`${base}/alice/nothing/data.json?key=${nextKey()}&query=${q}`);
  get(`${data('json')}?query=${q}`, { headers: { 'x-api-key': revoked } });
  get(`${data('json')}?query=${q}`, { headers: { authorization: `Bearer ${unknown}` } });
  // 429s: the greedy key past the rate limit.
  for (let i = 0; i < perMinute + 3; i += 1) get(`${data('json')}?key=${greedy}&query=${q}`);
  // POSTs: form, JSON, both places, bad bodies, wrong type, too large.
  const post = (body: string, type: string | undefined, url = data('json')) =>
    get(url, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
  post(new URLSearchParams({ key: nextKey(), query: sql }).toString(), 'application/x-www-form-urlencoded');
  post(`%6Bey=${nextKey()}&query=${q}`, 'application/x-www-form-urlencoded');
  post(JSON.stringify({ key: nextKey(), query: sql }), 'application/json', data('csv'));
  post(JSON.stringify({ key: nextKey(), query: sql, callback: 'cb' }), 'application/json', `${data('json')}?key=${unknown}`);
  post(`{"key": "${nextKey()}", "query": `, 'application/json');
  post(`{"key": 7, "api_key": "${nextKey()}"}`, 'application/json');
  post(`key=${nextKey()}`, 'text/plain');
  post(`key=${nextKey()}&query=${'y'.repeat(requestLimits(100_000).maxBodyBytes)}`, 'application/x-www-form-urlencoded');
  // Pages, feeds, scraper information, assets, health, with keys where a careless client puts them.
  for (const path of [
    '/',
    '/alice',
    '/alice/planning',
    '/docs',
    '/documentation/api',
    '/alice/planning.json',
    '/healthz',
    '/assets/site.css',
    '/no/such/page/here',
  ]) {
    get(`${base}${path}?key=${nextKey()}&callback=a(){}alert(document['domain']);function%20b`);
  }
  get(`${base}/alice/planning?key=${nextKey()}&sql=${q}&format=atom&table=data`);
  // Publishing with a key, refused (wrong type) and not the owner's.
  get(`${data('sqlite')}?key=${nextKey()}`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'no' });
  get(`${data('sqlite')}`, { method: 'PUT', headers: { 'x-api-key': unknown }, body: 'no' });
  // Methods a path does not take.
  get(`${data('json')}?key=${nextKey()}`, { method: 'DELETE' });
  get(`${base}/alice/planning?key=${nextKey()}`, { method: 'POST', body: '' });
  await Promise.all(calls);

  // What only raw sockets can send: malformed URLs and requests, each holding a key.
  const raw: string[] = [
    `GET /alice/plan%ZZning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET /alice/planning/data.json?key=${nextKey()}&query=%E0%A4%A HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`,
    `GET /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\n\r\n`,
    `FOO /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${nextKey()}\r\nX-Filler: ${'f'.repeat(20_000)}\r\n\r\n`,
    `GET /alice/planning/data.json?key=${nextKey()}&q=${'z'.repeat(1_000_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `CONNECT /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${nextKey()}\r\n\r\n`,
    `GET /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\nExpect: nothing\r\n\r\n`,
    `POST /alice/planning/data.json HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nkey=${nextKey()}\r\n0\r\n\r\n`,
    `POST /alice/planning/data.json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"key": "${nextKey()}"`,
    `GET /alice/planning/data.json?key=${nextKey()} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${nextKey()}\r\n`,
  ];
  await Promise.all(raw.map((request) => rawExchange(port, request, { timeoutMs: 5000 })));

  const logs = server.logs();
  const lines = logs.trim().split('\n');
  assert.ok(lines.filter((l) => l.includes('"msg":"request"')).length > 100, 'the requests were logged');
  assert.match(logs, /key=\[redacted\]/);
  assert.match(logs, /"code":"SIPHON_ERR_HEADERS_TOO_LARGE"/, 'the refusals were logged');
  for (const secret of secrets) {
    for (const form of [secret, secret.slice(4), encodeAll(secret), hashKey(secret)]) {
      const line = lines.find((l) => l.includes(form));
      assert.equal(line, undefined, `a key (or its hash) was logged: ${line?.slice(0, 300)}`);
    }
  }
});

test('the pretty form logs no key either, and is not JSON', async () => {
  const pretty = await startServer({ logFormat: 'pretty', trustProxy: true, rateLimitPerMinute: 2 });
  try {
    const keys: string[] = [];
    const key = async () => {
      keys.push(await pretty.catalog.createKey('alice'));
      return keys.at(-1)!;
    };
    keys.push((await pretty.catalog.addUser('alice')).key);
    await pretty.catalog.addScraper('alice/planning', makeDb(pretty.dataDir, 'planning.sqlite', planningSql), {
      isPrivate: false,
      description: '',
    });
    const data = `${pretty.base}/alice/planning/data.json`;
    const calls: Promise<Response>[] = [];
    const fresh: string[] = [];
    for (let i = 0; i < 40; i += 1) fresh.push(await key());
    const next = () => fresh.pop()!;
    for (const headers of keyedHeaders(next)) calls.push(fetch(`${data}?key=${next()}&query=${q}`, { headers }));
    for (const name of ['key', '%6Bey', 'api_key', 'token']) calls.push(fetch(`${data}?${name}=${next()}&query=${q}`));
    calls.push(fetch(`${data}?key=${next()}&query=${encodeURIComponent('select nonsense(')}`));
    calls.push(fetch(`${pretty.base}/alice/${next()}/data.json?query=${q}`));
    const greedyKey = next();
    for (let i = 0; i < 4; i += 1) calls.push(fetch(`${data}?key=${greedyKey}&query=${q}`));
    const statuses = await Promise.all(
      calls.map(async (c) => {
        const res = await c;
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.ok(statuses.includes(429) && statuses.includes(400) && statuses.includes(200), String(statuses));
    await rawExchange(
      Number(new URL(pretty.base).port),
      `GET /alice/planning/data.json?key=${next()} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`,
      { timeoutMs: 5000 },
    );

    const logs = pretty.logs();
    const lines = logs.trimEnd().split('\n');
    for (const line of lines) assert.match(line, /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO |WARN |ERROR) | {4})/, line);
    assert.ok(lines.filter((l) => / request reqId=/.test(l)).length >= statuses.length, 'the requests were logged');
    assert.match(logs, / status=429 .*code=SIPHON_ERR_RATE_LIMITED/);
    assert.match(logs, /code=SIPHON_ERR_MALFORMED_REQUEST/);
    for (const secret of keys) {
      for (const form of [secret, secret.slice(4), encodeAll(secret), hashKey(secret)]) {
        const line = lines.find((l) => l.includes(form));
        assert.equal(line, undefined, `a key (or its hash) was logged: ${line?.slice(0, 300)}`);
      }
    }
  } finally {
    await pretty.close();
  }
});
