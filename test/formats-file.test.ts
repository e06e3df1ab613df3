/**
 * data.sqlite (the stored file itself), HEAD on every format, and unknown formats.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { sha256File } from './helpers/fixture-db.js';
import { allRows, fetchText, startFormatsFixture, type FormatsFixture } from './formats-fixture.js';

let fx: FormatsFixture;

before(async () => {
  fx = await startFormatsFixture();
});
after(() => fx.close());

const path = (file: string, params: Record<string, string>) => `/alice/awkward/${file}?${new URLSearchParams({ key: fx.key, ...params })}`;

/**
 * One request over a bare socket, read until the server closes it. fetch() never exposes bytes sent
 * after the headers of a HEAD response, so this is the only way to see that there are none.
 */
function rawRequest(method: string, target: string): Promise<{ status: number; headers: Map<string, string>; body: Buffer }> {
  const { hostname, port } = new URL(fx.server.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no header end in ${JSON.stringify(all.toString())}`));
      const [statusLine, ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      const headers = new Map(
        lines.map((l) => {
          const colon = l.indexOf(':');
          return [l.slice(0, colon).toLowerCase(), l.slice(colon + 1).trim()] as [string, string];
        }),
      );
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: all.subarray(split + 4) });
    });
    socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
  });
}

test('data.sqlite returns the stored data file byte for byte with its size as Content-Length, no query needed', async () => {
  // Uncompressed: fetch() asks for gzip by default, and a compressed file has no Content-Length.
  const res = await fetch(`${fx.server.base}${path('data.sqlite', {})}`, { headers: { 'accept-encoding': 'identity' } });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/vnd.sqlite3');
  assert.equal(res.headers.get('content-disposition'), 'attachment; filename="alice-awkward.sqlite"');
  const size = statSync(fx.file).size;
  assert.equal(res.headers.get('content-length'), String(size));
  assert.equal(bytes.length, size);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), sha256File(fx.file));
});

test('data.sqlite ignores a query parameter and still sends the whole file', async () => {
  const res = await fetch(`${fx.server.base}${path('data.sqlite', { query: 'select 1' })}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), sha256File(fx.file));
});

const headCases: { name: string; file: string; params: Record<string, string>; type: string }[] = [
  { name: 'json', file: 'data.json', params: { query: allRows }, type: 'application/json; charset=utf-8' },
  { name: 'jsonp', file: 'data.json', params: { query: allRows, callback: 'cb' }, type: 'application/javascript; charset=utf-8' },
  { name: 'csv', file: 'data.csv', params: { query: allRows }, type: 'text/csv; charset=utf-8' },
  { name: 'ndjson', file: 'data.ndjson', params: { query: allRows }, type: 'application/x-ndjson; charset=utf-8' },
  { name: 'sqlite', file: 'data.sqlite', params: {}, type: 'application/vnd.sqlite3' },
];

for (const c of headCases) {
  test(`HEAD on ${c.name} gives the GET headers and no body`, async () => {
    const head = await rawRequest('HEAD', path(c.file, c.params));
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), c.type);
    assert.equal(head.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(head.body.length, 0, `HEAD sent a body: ${JSON.stringify(head.body.toString().slice(0, 80))}`);
    const get = await fetch(`${fx.server.base}${path(c.file, c.params)}`);
    await get.arrayBuffer();
    assert.equal(head.headers.get('content-disposition') ?? null, get.headers.get('content-disposition'));
    if (c.name === 'sqlite') assert.equal(head.headers.get('content-length'), String(statSync(fx.file).size));
  });
}

test('the raw-socket reader does see a body when there is one (GET json)', async () => {
  // Guards the HEAD tests above: an empty body there must mean the server sent none.
  const get = await rawRequest('GET', path('data.json', { query: 'select 1 as x' }));
  assert.equal(get.status, 200);
  assert.ok(get.body.toString().includes('[\n{"x":1}\n]'));
});

for (const file of ['data.xml', 'data.', 'data', 'data.jsonp', 'data.JSON']) {
  test(`${file} is answered 404 with an error listing the formats there are`, async () => {
    const { res, text } = await fetchText(`${fx.server.base}${path(file, { query: allRows })}`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const { error } = JSON.parse(text) as { error: string };
    for (const name of ['json', 'csv', 'ndjson', 'sqlite']) assert.match(error, new RegExp(`\\b${name}\\b`), `lists ${name}`);
  });
}
