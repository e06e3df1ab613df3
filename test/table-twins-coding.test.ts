/**
 * The table views' twins are answered as the data API's answers are: compressed as the client
 * asks, counted in the metrics under their own formats, and every API call, twin or data, cut short
 * or refused, is one download.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { tablePath } from '../src/views/table-paths.js';
import { makeDb } from './helpers/fixture-db.js';
import { downloadsFrom, startServer, writtenDownloads, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startServer({ metricsPort: 0 });
  ({ key } = await server.catalog.addUser('alice'));
  const file = makeDb(
    server.dataDir,
    'places.sqlite',
    `create table places (name text, n integer);
     with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000)
     insert into places select 'Place number ' || x || ' of the Blue Mountains', x from c;`,
  );
  await server.catalog.addScraper('alice/places', file, { isPrivate: false, description: '' });
});
after(() => server.close());

const places = tablePath('alice', 'places', 'places');

/** A GET's status, headers and raw body bytes, as sent (not decompressed). */
function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decode: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => zlib.gunzipSync(body),
  br: (body) => zlib.brotliDecompressSync(body),
  identity: (body) => body,
};

test('twins are compressed as the client asks, gzip or br, with Vary: Accept-Encoding; the same bytes once decoded', async () => {
  for (const path of [`${places}.json?_size=50`, `${places}.csv?_size=50`, `${places}/7.json`]) {
    const plain = await rawGet(path, { 'x-api-key': key });
    assert.equal(plain.status, 200, path);
    assert.equal(plain.headers['content-encoding'], undefined, path);
    assert.match(String(plain.headers.vary), /Accept-Encoding/, path);
    assert.ok(plain.body.includes('Place number 7 of the Blue Mountains'), path);
    for (const coding of ['gzip', 'br']) {
      const coded = await rawGet(path, { 'x-api-key': key, 'accept-encoding': coding });
      assert.equal(coded.status, 200, `${path} ${coding}`);
      assert.equal(coded.headers['content-encoding'], coding, `${path} ${coding}`);
      assert.match(String(coded.headers.vary), /Accept-Encoding/, `${path} ${coding}`);
      assert.equal(coded.headers['content-length'], undefined, `${path} ${coding}`);
      assert.deepEqual(decode[coding]!(coded.body), plain.body, `${path} ${coding}`);
    }
  }
  // Errors are never compressed.
  const refused = await rawGet(`${tablePath('alice', 'places', 'nothing')}.json`, { 'x-api-key': key, 'accept-encoding': 'gzip' });
  assert.equal(refused.status, 404);
  assert.equal(refused.headers['content-encoding'], undefined);
});

/** A counter's value for one format, 0 when it has no such series. */
function counted(metrics: string, name: string, format: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{format="${format}"} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test("twins' rows and bytes are counted under their own formats, table.json, table.csv and row.json, not other", async () => {
  const metricsText = async () => (await fetch(server.metricsUrl!)).text();
  const before = await metricsText();
  const answers = await Promise.all(
    [`${places}.json?_size=5`, `${places}.csv?_size=4`, `${places}/3.json`].map((path) => rawGet(path, { 'x-api-key': key })),
  );
  const after = await metricsText();
  const grew = (name: string, format: string) => counted(after, name, format) - counted(before, name, format);
  assert.deepEqual(
    ['table.json', 'table.csv', 'row.json'].map((format) => grew('siphon_rows_streamed_total', format)),
    [5, 4, 1],
  );
  assert.deepEqual(
    ['table.json', 'table.csv', 'row.json'].map((format) => grew('siphon_bytes_streamed_total', format)),
    answers.map((answer) => answer.body.length),
  );
  assert.equal(grew('siphon_rows_streamed_total', 'other'), 0);
});

test('every API call is one download, with the status it ended with: answered, 304, refused, cut short, twins too', async () => {
  const from = (await writtenDownloads(server)).length;
  // Cut short: the client leaves after the first bytes of a large export.
  await new Promise<void>((resolve, reject) => {
    const req = request(`${server.base}/alice/places/data.json?key=${key}&query=${encodeURIComponent('select * from places')}`, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
  const query = `/alice/places/data.json?key=${key}&query=${encodeURIComponent('select n from places limit 2')}`;
  const answered = await rawGet(query, {});
  assert.equal(answered.status, 200);
  assert.equal((await rawGet(query, { 'if-none-match': String(answered.headers.etag) })).status, 304);
  assert.equal((await rawGet(`/alice/places/data.x?key=${key}`, {})).status, 404);
  assert.equal((await rawGet(`/alice/places/data.json?key=${key}&query=${encodeURIComponent('delete from places')}`, {})).status, 400);
  assert.equal((await rawGet(`${places}.json?_size=1`, { 'x-api-key': key, 'accept-encoding': 'br' })).status, 200);
  assert.equal((await rawGet(`${places}.json?_sort=nothing`, { 'x-api-key': key })).status, 400);
  const expected = [
    ['json', 499],
    ['json', 200],
    ['json', 304],
    ['x', 404],
    ['json', 400],
    ['table.json', 200],
    ['table.json', 400],
  ];
  await downloadsFrom(server, from, expected.length);
  // Flushed again: a second record of any call would be written by now.
  const recorded = (await writtenDownloads(server)).slice(from);
  assert.deepEqual(recorded.map((d) => [d.format, d.status]).sort(), expected.sort());
});
