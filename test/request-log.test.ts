/**
 * The request log: exactly one line per request, whatever answers it (a route, a refusal before
 * the route, Node's parser), with its id, route, status, error code, key id, duration, rows and
 * bytes; the same id in `X-Request-Id` on every response; and, behind a trusted proxy, the client's
 * address from `X-Forwarded-For`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashKey } from '../src/keys.js';
import { startApp } from './helpers/app.js';
import { planningSql } from './helpers/browser.js';
import { waitFor } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { requestRecords, type RequestRecord } from './helpers/log-lines.js';
import { rawExchange } from './helpers/raw-http.js';
import { WebClient } from './helpers/web-client.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const query = 'select title, n from data order by n';

async function addPlanning(server: TestServer): Promise<string> {
  const { key } = await server.catalog.addUser('alice');
  await server.catalog.addScraper('alice/planning', makeDb(server.dataDir, 'planning.sqlite', planningSql), {
    isPrivate: false,
    description: '',
  });
  return key;
}

/** The lines logged for the request `id`, once there is one (a line is written once its response has ended). */
async function linesOf(server: Pick<TestServer, 'logs'>, id: string): Promise<RequestRecord[]> {
  await waitFor(() => requestRecords(server.logs()).some((r) => r.reqId === id), 5000);
  return requestRecords(server.logs()).filter((r) => r.reqId === id);
}

describe('one line per request', () => {
  let server: TestServer;
  let key: string;
  let keyId: number;

  before(async () => {
    server = await startServer();
    key = await addPlanning(server);
    keyId = (await server.store.findKey(hashKey(key)))!.id;
  });
  after(() => server.close());

  test('a data call: id, route, status, key id (never the key), format, rows, bytes, duration and queue times', async () => {
    const res = await fetch(dataUrl(server.base, 'alice/planning', 'csv', { key, query }), { headers: { 'accept-encoding': 'identity' } });
    const body = await res.text();
    const id = res.headers.get('x-request-id')!;
    assert.match(id, uuid);
    const [line, ...more] = await linesOf(server, id);
    assert.equal(more.length, 0, 'one line');
    assert.equal(line!.level, 30);
    assert.equal(line!.method, 'GET');
    assert.equal(line!.route, '/:owner/:scraper/data.:format');
    assert.match(line!.url!, /^\/alice\/planning\/data\.csv\?key=\[redacted\]&query=select/);
    assert.equal(line!.status, 200);
    assert.equal(line!.code, undefined);
    assert.equal(line!.keyId, keyId);
    assert.equal(line!.format, 'csv');
    assert.equal(line!.rows, 4);
    assert.equal(line!.bytes, Buffer.byteLength(body));
    assert.equal(line!.ip, '127.0.0.1');
    assert.equal(typeof line!.durationMs, 'number');
    assert.equal(typeof line!.queueMs, 'number');
    assert.equal(typeof line!.queryMs, 'number');
  });

  test("refusals: by a route, before any route and by Node's parser, each one line with its code, its id in X-Request-Id", async () => {
    const refused = [
      [await fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query: 'delete from data' })), 400, 'SIPHON_ERR_QUERY_NOT_READ'],
      [await fetch(dataUrl(server.base, 'alice/planning', 'json', { query })), 401, 'SIPHON_ERR_KEY_MISSING'],
      [await fetch(`${server.base}/alice/planning/data.json`, { method: 'DELETE' }), 405, 'SIPHON_ERR_METHOD_NOT_ALLOWED'],
      [await fetch(`${server.base}/alice/plan%ZZning/data.json`), 400, 'SIPHON_ERR_URL_INVALID'],
      [await fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query, callback: 'show' })), 200, undefined],
      [
        await fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query: 'select nonsense(', callback: 'show' })),
        200,
        'SIPHON_ERR_SQL',
      ],
    ] as const;
    for (const [res, status, code] of refused) {
      await res.arrayBuffer();
      assert.equal(res.status, status);
      const id = res.headers.get('x-request-id')!;
      assert.match(id, uuid);
      const lines = await linesOf(server, id);
      assert.equal(lines.length, 1, `${code}: one line`);
      assert.equal(lines[0]!.code, code);
      // A JSONP error is answered 200, and logged with the status its body gives.
      assert.equal(lines[0]!.status, code === 'SIPHON_ERR_SQL' ? 400 : status);
    }
    const port = Number(new URL(server.base).port);
    const raw = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\nX-Request-Id: from-the-client\r\n\r\n', {
      timeoutMs: 5000,
    });
    const answer = raw.responses[0]!;
    assert.equal(answer.status, 400);
    const id = answer.headers['x-request-id']!;
    assert.match(id, uuid, 'the headers of a request the parser refused are not read');
    const [line] = await linesOf(server, id);
    assert.deepEqual([line!.code, line!.status, line!.route, line!.url], ['SIPHON_ERR_MALFORMED_REQUEST', 400, null, undefined]);
  });

  test('every kind of answer carries the id of its line: a 304, a HEAD, a compressed stream, a page, an asset', async () => {
    const url = dataUrl(server.base, 'alice/planning', 'json', { key, query });
    const first = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    await first.arrayBuffer();
    const answers = [
      [await fetch(url, { headers: { 'accept-encoding': 'identity', 'if-none-match': first.headers.get('etag')! } }), 304],
      [await fetch(url, { method: 'HEAD' }), 200],
      [await fetch(url, { headers: { 'accept-encoding': 'br' } }), 200],
      [await fetch(`${server.base}/alice/planning`), 200],
      [await fetch(`${server.base}/assets/site.css`), 200],
    ] as const;
    for (const [res, status] of answers) {
      await res.arrayBuffer();
      assert.equal(res.status, status);
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', uuid, `${res.url} ${status}`);
      const lines = await linesOf(server, id!);
      assert.equal(lines.length, 1);
      assert.equal(lines[0]!.status, status);
    }
  });

  test('a well-formed incoming X-Request-Id is kept; anything else, or what could be a key, is replaced', async () => {
    for (const sent of ['req-42', 'a1b2c3d4-e5f6-4789-abcd-ef0123456789', 'trace:00f067aa0ba902b7/1=x', 'x'.repeat(128)]) {
      const res = await fetch(`${server.base}/healthz`, { headers: { 'x-request-id': sent } });
      assert.equal(res.headers.get('x-request-id'), sent);
      assert.equal((await linesOf(server, sent)).length, 1);
    }
    for (const sent of ['two words', 'x'.repeat(129), 'quote"d', key, `req-${key.slice(0, 8)}`, 'SPH_abc', '']) {
      const res = await fetch(`${server.base}/healthz`, { headers: { 'x-request-id': sent } });
      const id = res.headers.get('x-request-id')!;
      assert.match(id, uuid, JSON.stringify(sent));
      await linesOf(server, id);
    }
    assert.ok(!server.logs().includes(key.slice(4)), 'a key sent as a request id was logged');
  });

  test("a route's own record carries its request's id, as its line does (the request's logger is made when first used)", async () => {
    const res = await new WebClient(server.base).logIn('nobody', 'not a password');
    const id = res.headers.get('x-request-id')!;
    assert.match(id, uuid);
    await linesOf(server, id);
    const records = server
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { reqId?: string; msg?: string })
      .filter((r) => r.reqId === id);
    assert.deepEqual(records.map((r) => r.msg).sort(), ['request', 'sign-in failed']);
  });

  test('a response cut short is one line, at warn, with why', async () => {
    const controller = new AbortController();
    const res = await fetch(
      dataUrl(server.base, 'alice/planning', 'json', {
        key,
        query: "with recursive c(x) as (select 1 union all select x + 1 from c limit 3000000) select x, printf('%090d', x) as t from c",
      }),
      { signal: controller.signal },
    );
    const id = res.headers.get('x-request-id')!;
    await res.body!.getReader().read();
    controller.abort();
    const [line, ...more] = await linesOf(server, id);
    assert.equal(more.length, 0);
    assert.equal(line!.level, 40);
    assert.equal(line!.cut, 'client-gone');
    assert.equal(line!.status, 499);
    assert.equal(line!.code, 'SIPHON_ERR_CLIENT_CLOSED');
    assert.equal(line!.keyId, keyId);
  });

  test('every line of the log is JSON, and no request has two', () => {
    const lines = server.logs().trimEnd().split('\n');
    for (const line of lines) JSON.parse(line);
    const ids = requestRecords(server.logs()).map((r) => r.reqId);
    assert.equal(new Set(ids).size, ids.length);
  });
});

// No query runs: the service in this process, listening on loopback, as the client's address is the point.
describe('--trust-proxy', () => {
  test('off: the peer is the client, whatever X-Forwarded-For says', async () => {
    const server = await startApp();
    try {
      const res = await fetch(`${server.base}/docs`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      const [line] = await linesOf(server, res.headers.get('x-request-id')!);
      assert.equal(line!.ip, '127.0.0.1');
    } finally {
      await server.close();
    }
  });

  test('a trusted proxy: the client is the last address it did not add; a made-up one is not logged as sent', async () => {
    const server = await startApp({ trustProxy: 'loopback' });
    try {
      const ipOf = async (xff: string) => {
        const res = await fetch(`${server.base}/docs`, { headers: { 'x-forwarded-for': xff } });
        return (await linesOf(server, res.headers.get('x-request-id')!))[0]!.ip;
      };
      assert.equal(await ipOf('203.0.113.7'), '203.0.113.7');
      assert.equal(await ipOf('198.51.100.1, 203.0.113.7'), '203.0.113.7');
      assert.equal(await ipOf('198.51.100.1, 127.0.0.1'), '198.51.100.1', 'a loopback proxy in the chain is trusted too');
      assert.equal(await ipOf('sph_notanaddress'), '[not an IP address]');
    } finally {
      await server.close();
    }
  });

  test('a peer not in the list is the client', async () => {
    const server = await startApp({ trustProxy: '10.0.0.0/8' });
    try {
      const res = await fetch(`${server.base}/docs`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      assert.equal((await linesOf(server, res.headers.get('x-request-id')!))[0]!.ip, '127.0.0.1');
    } finally {
      await server.close();
    }
  });
});
