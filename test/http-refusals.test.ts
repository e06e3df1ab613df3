import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hashKey } from '../src/keys.js';
import { requestLimits } from '../src/limits/request-size.js';
import { rawExchange, type RawExchange, type RawResponse } from './helpers/raw-http.js';
import { startApp, type ListeningApp } from './helpers/app.js';
import { addTinyScraper } from './helpers/server.js';
import { assertRefused, errorShapeProblem, fetchAnswer } from './helpers/siphon-answers.js';

/** Short, so that stalled headers and bodies are let go quickly. */
const idleMs = 1000;
let server: ListeningApp;
let port: number;
let key: string;
const limits = requestLimits(100_000);

before(async () => {
  server = await startApp({ clientIdleTimeoutMs: idleMs });
  port = Number(new URL(server.base).port);
  ({ key } = await server.catalog.addUser('alice'));
  await addTinyScraper(server, 'alice/t');
});
after(() => server.close());

function only(exchange: RawExchange, what: string): RawResponse {
  assert.equal(
    exchange.responses.length,
    1,
    `${what}: one answer (got ${exchange.received.toString('latin1').slice(0, 300)}; ${exchange.error ?? ''})`,
  );
  return exchange.responses[0]!;
}

const asAnswer = (res: RawResponse) => ({ status: res.status, headers: res.headers, body: res.body.toString('utf8') });

/** Nothing the request held comes back: not its key, not its URL. */
function assertNoEcho(res: RawResponse, ...sent: string[]): void {
  const text = res.raw.toString('latin1');
  for (const s of [key, ...sent]) assert.ok(!text.includes(s), `the answer echoes ${s.slice(0, 40)}`);
}

test('a malformed URL holding a key is answered in our shape, echoing neither the URL nor the key', async () => {
  const res = only(await rawExchange(port, `GET /alice/plan%ZZning/data.json?key=${key} HTTP/1.1\r\nHost: x\r\n\r\n`), 'bad URL');
  assertRefused(asAnswer(res), 400, 'SIPHON_ERR_URL_INVALID', 'bad URL');
  assertNoEcho(res, 'plan%ZZning', 'ZZ');
  // fetch() sends such a URL too, and gets the same.
  const fetched = await fetchAnswer(await fetch(`${server.base}/alice/%E0%A4%A/data.json?key=${key}`));
  assertRefused(fetched, 400, 'SIPHON_ERR_URL_INVALID', 'bad URL by fetch');
});

test("what Node's parser refuses is answered in our shape, with Connection: close", async () => {
  const cases: [string, string, number, string][] = [
    ['an unknown method', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'SIPHON_ERR_MALFORMED_REQUEST'],
    [
      'a space in the URL',
      `GET /alice/t/data.json?key=${key}&query=select 1 HTTP/1.1\r\nHost: x\r\n\r\n`,
      400,
      'SIPHON_ERR_MALFORMED_REQUEST',
    ],
    ['a header name with a space', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-API Key: ${key}\r\n\r\n`, 400, 'SIPHON_ERR_MALFORMED_REQUEST'],
    ['a header without a colon', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-API-Key ${key}\r\n\r\n`, 400, 'SIPHON_ERR_MALFORMED_REQUEST'],
    [
      'a Content-Length that is not a number',
      'POST /alice/t/data.json HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n',
      400,
      'SIPHON_ERR_MALFORMED_REQUEST',
    ],
    [
      'Content-Length and chunked together',
      'POST /alice/t/data.json HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'SIPHON_ERR_MALFORMED_REQUEST',
    ],
    ['an HTTP version that is not 1.x', 'GET /healthz HTTP/3.0\r\nHost: x\r\n\r\n', 400, 'SIPHON_ERR_MALFORMED_REQUEST'],
    ['no request line at all', '\x00\x01\x02garbage\r\n\r\n', 400, 'SIPHON_ERR_MALFORMED_REQUEST'],
    [
      'header fields over their bound',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(limits.maxHeaderFieldBytes)}\r\n\r\n`,
      431,
      'SIPHON_ERR_HEADERS_TOO_LARGE',
    ],
  ];
  for (const [what, request, status, code] of cases) {
    const res = only(await rawExchange(port, request), what);
    assertRefused(asAnswer(res), status, code, what);
    assertNoEcho(res);
  }
});

test('an HTTP/1.1 request without Host is a 400 in our shape; HTTP/1.0 needs none', async () => {
  const res = only(await rawExchange(port, 'GET /healthz HTTP/1.1\r\n\r\n'), 'no Host');
  assertRefused(asAnswer(res), 400, 'SIPHON_ERR_HOST_INVALID', 'no Host');
  const old = only(await rawExchange(port, 'GET /docs HTTP/1.0\r\n\r\n'), 'HTTP/1.0');
  assert.equal(old.status, 200);
});

test('a method a path does not take is 405 with Allow; a path no method takes is 404', async () => {
  const cases: [string, string, number, string | undefined][] = [
    ['POST', '/alice', 405, 'GET, HEAD'],
    ['POST', '/alice/t', 405, 'GET, HEAD'],
    ['DELETE', '/alice/t/data.json', 405, 'GET, HEAD, OPTIONS, POST'],
    ['PUT', '/alice/t/data.json', 405, 'GET, HEAD, OPTIONS, POST'],
    ['DELETE', '/alice/t/data.sqlite', 405, 'GET, HEAD, OPTIONS, PUT, POST'],
    ['PROPFIND', '/alice/t/data.json', 405, 'GET, HEAD, OPTIONS, POST'],
    ['TRACE', '/docs', 405, 'GET, HEAD'],
    ['POST', '/healthz', 405, 'GET, HEAD'],
    ['POST', '/a/b/c/d', 404, undefined],
    ['GET', '/a/b/c/d', 404, undefined],
  ];
  for (const [method, path, status, allow] of cases) {
    const res = only(
      await rawExchange(port, `${method} ${path}?key=${key} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`),
      `${method} ${path}`,
    );
    assertRefused(asAnswer(res), status, status === 405 ? 'SIPHON_ERR_METHOD_NOT_ALLOWED' : 'SIPHON_ERR_NOT_FOUND', `${method} ${path}`);
    assert.equal(res.headers.allow, allow, `${method} ${path}`);
    assertNoEcho(res);
  }
});

test('CONNECT and an Expect Node does not know are answered in our shape, not dropped or left empty', async () => {
  const connect = only(await rawExchange(port, `CONNECT /alice/t/data.json HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`), 'CONNECT');
  assertRefused(asAnswer(connect), 405, 'SIPHON_ERR_METHOD_NOT_ALLOWED', 'CONNECT');
  assert.equal(connect.headers.allow, 'GET, HEAD, OPTIONS, POST');
  const expect = only(
    await rawExchange(port, `GET /alice/t/data.json?key=${key} HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n`),
    'Expect',
  );
  assertRefused(asAnswer(expect), 417, 'SIPHON_ERR_EXPECTATION', 'Expect');
  assertNoEcho(expect, 'the-unexpected');
  // 100-continue, whose answer follows an interim 100, with a query that runs: errors.test.ts.
});

test("a URL or path name over its bound is 414; URL and headers over Node's bound together are 431, read to the end", async () => {
  const longUrl = `/alice/t/data.json?key=${key}&query=${'x'.repeat(limits.maxUrlBytes)}`;
  const tooLong = only(await rawExchange(port, `GET ${longUrl} HTTP/1.1\r\nHost: x\r\n\r\n`), 'long URL');
  assertRefused(asAnswer(tooLong), 414, 'SIPHON_ERR_URL_TOO_LONG', 'long URL');
  assertNoEcho(tooLong, 'xxxxxxxx');
  const longName = only(await rawExchange(port, `GET /alice/${'s'.repeat(101)}/data.json HTTP/1.1\r\nHost: x\r\n\r\n`), 'long name');
  assertRefused(asAnswer(longName), 414, 'SIPHON_ERR_URL_TOO_LONG', 'long name');
  // Far over: the client is still sending when the parser gives up, and must still read the answer.
  const huge = only(
    await rawExchange(port, `GET /alice/t/data.json?key=${key}&query=${'y'.repeat(4 * limits.maxHeadBytes)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    'huge URL',
  );
  assertRefused(asAnswer(huge), 431, 'SIPHON_ERR_HEADERS_TOO_LARGE', 'huge URL');
  assert.equal(huge.headers.connection, 'close');
  assertNoEcho(huge, 'yyyyyyyy');
});

test('headers that do not all come in time are answered 408, as is a POST body that stalls', async () => {
  const slowHead = only(
    await rawExchange(port, `GET /alice/t/data.json?key=${key} HTTP/1.1\r\nHost: x\r\n`, { timeoutMs: 10 * idleMs }),
    'slow headers',
  );
  assertRefused(asAnswer(slowHead), 408, 'SIPHON_ERR_REQUEST_TIMEOUT', 'slow headers');
  const slowBody = only(
    await rawExchange(
      port,
      `POST /alice/t/data.json HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nkey=${key}`,
      { timeoutMs: 10 * idleMs },
    ),
    'slow body',
  );
  assertRefused(asAnswer(slowBody), 408, 'SIPHON_ERR_REQUEST_TIMEOUT', 'slow body');
  assert.equal(slowBody.headers.connection, 'close');
  assertNoEcho(slowBody);
});

test('a malformed chunked body is answered by the route reading it; a body cut short by its client too', async () => {
  const head =
    'POST /alice/t/data.json HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n';
  const malformed = only(await rawExchange(port, `${head}zz\r\nkey=${key}\r\n0\r\n\r\n`), 'bad chunk');
  assertRefused(asAnswer(malformed), 400, 'SIPHON_ERR_MALFORMED_REQUEST', 'bad chunk');
  assert.equal(malformed.headers.connection, 'close');
  // The client closes its side mid-body: its connection can still take the answer.
  const cut = only(await rawExchange(port, `${head}40\r\nkey=${key}`, { halfClose: true }), 'cut body');
  assertRefused(asAnswer(cut), 400, 'SIPHON_ERR_BODY_INCOMPLETE', 'cut body');
});

test('pages asked for with a Host that is not host[:port] are still served, not a 500', async () => {
  for (const host of ['a b', '', 'user@evil.example', 'x:99999']) {
    for (const path of ['/', '/docs', '/alice/t', '/alice']) {
      const res = only(await rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`), `${path} with Host ${host}`);
      assert.equal(res.status, 200, `${path} with Host ${JSON.stringify(host)}: ${res.body.toString().slice(0, 200)}`);
    }
  }
});

test('no refusal put a key, or its hash, in the log; each was logged by its code', () => {
  const logs = server.logs();
  for (const secret of [key, key.slice(4), hashKey(key)]) assert.ok(!logs.includes(secret), 'a key was logged');
  for (const code of [
    'SIPHON_ERR_MALFORMED_REQUEST',
    'SIPHON_ERR_HEADERS_TOO_LARGE',
    'SIPHON_ERR_REQUEST_TIMEOUT',
    'SIPHON_ERR_EXPECTATION',
  ]) {
    assert.match(logs, new RegExp(`"code":"${code}"`), code);
  }
  // The shape checker itself refuses what is not our shape.
  assert.match(errorShapeProblem({ status: 400, headers: {}, body: '{"error":"x"}' }) ?? '', /Siphon-Error-Code/);
});
