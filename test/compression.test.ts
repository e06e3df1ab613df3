/**
 * gzip and brotli for every data format: the same bytes once decompressed, Accept-Encoding
 * negotiation, and streaming kept whole under compression (flushing, backpressure, mid-stream
 * failures, client aborts). Responses are read with node:http, which (unlike fetch) does not decompress.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { waitFor } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { dataUrl, downloadsFrom, startServer, writtenDownloads, type TestServer } from './helpers/server.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body ended properly (not cut short). */
  complete: boolean;
}

const sources = tempDir();
let dataFile: string;
let server: TestServer;
let key: string;

before(async () => {
  // 200,000 rows of ~100 bytes in `big` (about 25 MB of JSON); varied values and Atom's columns in `things`.
  dataFile = makeDb(
    sources,
    'mixed.sqlite',
    `
    create table big (id integer primary key, t text);
    with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000)
    insert into big select x, printf('%090d', x) from c;
    create table things (title text, content text, link text, date text, n integer, r real, b blob);
    insert into things values
      ('Fern', 'é 中文 <b>&</b> "q"', 'https://example.org/1', '2024-01-02T03:04:05Z', 9007199254740993, 0.1, x'00ff'),
      ('Oak, tall', 'line' || char(10) || 'two', 'https://example.org/2', '2024-02-03', -1, 1e-300, null),
      ('Reed', null, 'https://example.org/3', '2024-03-04', null, null, x'');`,
  );
  // A minute for a 200,000-row export to be made and compressed on a machine busy with other tests.
  server = await startServer({ queryTimeoutMs: 60_000, clientIdleTimeoutMs: 10_000 });
  ({ key } = await server.catalog.addUser('alice'));
  await server.catalog.addScraper('alice/mixed', dataFile, { isPrivate: false, description: 'Mixed' });
});
after(() => server.close());

const url = (format: string, params: Record<string, string>, target = server) =>
  dataUrl(target.base, 'alice/mixed', format, { key, ...params });

/** Makes a request and hands back the response unread, paused. */
function request(target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method, headers }, (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads a response to its end, complete or cut short. */
function readAll(res: http.IncomingMessage): Promise<Raw> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete });
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', done);
    res.on('aborted', done);
    res.on('error', () => {});
    res.resume();
  });
}

const get = async (target: string, headers: Record<string, string> = {}, method = 'GET') => readAll(await request(target, headers, method));

/** Decodes what was received, complete or not: a cut stream yields whatever was flushed before the cut. */
function decode(coding: string, body: Buffer): Buffer {
  if (coding === 'gzip') return zlib.gunzipSync(body, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (coding === 'br') return zlib.brotliDecompressSync(body, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  throw new Error(`unexpected coding ${coding}`);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** CPU time used so far by this process's children: the test servers' query processes. */
function queryProcessesCpuMs(): number {
  const pids = readdirSync('/proc/self/task').flatMap((tid) =>
    readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ').filter(Boolean),
  );
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields 14 and 15, utime and stime, counted after the parenthesised command name.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks * 10; // clock ticks are 1/100 s (USER_HZ) on Linux
}

const thingsQuery = 'select * from things';
const formats: { name: string; format: string; params: Record<string, string> }[] = [
  { name: 'json', format: 'json', params: { query: thingsQuery } },
  { name: 'jsonp', format: 'json', params: { query: thingsQuery, callback: 'cb' } },
  { name: 'csv', format: 'csv', params: { query: thingsQuery } },
  { name: 'ndjson', format: 'ndjson', params: { query: thingsQuery } },
  { name: 'atom', format: 'atom', params: { query: thingsQuery } },
  { name: 'sqlite', format: 'sqlite', params: {} },
];

describe('every format, gzip and br', () => {
  for (const f of formats) {
    test(`${f.name}: decompresses to exactly the bytes sent uncompressed`, async () => {
      const plain = await get(url(f.format, f.params));
      assert.equal(plain.status, 200);
      assert.ok(plain.complete);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.match(String(plain.headers.vary), /\bAccept-Encoding\b/i);
      if (f.format === 'sqlite') assert.equal(plain.headers['content-length'], String(statSync(dataFile).size));
      for (const coding of ['gzip', 'br']) {
        const packed = await get(url(f.format, f.params), { 'accept-encoding': coding });
        assert.equal(packed.status, 200, coding);
        assert.ok(packed.complete, coding);
        assert.equal(packed.headers['content-encoding'], coding);
        assert.equal(packed.headers['content-type'], plain.headers['content-type']);
        assert.equal(packed.headers['content-disposition'], plain.headers['content-disposition']);
        assert.match(String(packed.headers.vary), /\bAccept-Encoding\b/i);
        // Weak when compressed, even for the file whose uncompressed tag is strong (byte ranges: byte-ranges.test.ts).
        assert.equal(packed.headers.etag, plain.headers.etag!.replace(/^(W\/)?/, 'W/').replace(/"$/, `-${coding}"`));
        // The compressed size is not known before it is sent: chunked, never the uncompressed length.
        assert.equal(packed.headers['content-length'], undefined, coding);
        assert.equal(packed.headers['transfer-encoding'], 'chunked', coding);
        assert.ok(packed.body.length < plain.body.length, `${coding} is smaller`);
        assert.equal(sha256(decode(coding, packed.body)), sha256(plain.body), `${f.name} ${coding}`);
      }
    });
  }

  test('a 200,000-row json export: the same bytes through gzip and br', async () => {
    const target = url('json', { query: 'select * from big' });
    const plain = await get(target);
    assert.ok(plain.complete);
    assert.ok(plain.body.length > 20_000_000, `${plain.body.length} bytes`);
    for (const coding of ['gzip', 'br']) {
      const packed = await get(target, { 'accept-encoding': coding });
      assert.ok(packed.complete, coding);
      assert.equal(packed.headers['content-encoding'], coding);
      const decoded = decode(coding, packed.body);
      assert.equal(decoded.length, plain.body.length, coding);
      assert.equal(sha256(decoded), sha256(plain.body), coding);
    }
  });

  test('HEAD gives the headers a compressed GET would, with no Content-Length', async () => {
    for (const f of formats) {
      const head = await get(url(f.format, f.params), { 'accept-encoding': 'gzip' }, 'HEAD');
      assert.equal(head.status, 200, f.name);
      assert.equal(head.headers['content-encoding'], 'gzip', f.name);
      assert.equal(head.headers['content-length'], undefined, f.name);
      assert.equal(head.body.length, 0);
    }
  });

  test('downloads record the bytes of the body before compression', async () => {
    const from = (await writtenDownloads(server)).length;
    const plain = await get(url('csv', { query: thingsQuery }));
    const packed = await get(url('csv', { query: thingsQuery }), { 'accept-encoding': 'gzip' });
    const rows = await downloadsFrom(server, from, 2);
    assert.deepEqual(
      rows.map((r) => [r.status, r.rows, r.bytes]),
      [
        [200, 3, plain.body.length],
        [200, 3, plain.body.length],
      ],
    );
    assert.notEqual(packed.body.length, plain.body.length);
  });

  test('a small uncompressed answer is sent whole with its Content-Length; a large one is chunked', async () => {
    const small = await get(url('json', { query: thingsQuery }));
    assert.equal(small.headers['content-length'], String(small.body.length));
    assert.equal(small.headers['transfer-encoding'], undefined);
    const empty = await get(url('ndjson', { query: 'select * from things where 0' }));
    assert.deepEqual([empty.status, empty.headers['content-length'], empty.body.length], [200, '0', 0]);
    const large = await get(url('csv', { query: 'select * from big limit 20000' }));
    assert.ok(large.complete);
    assert.ok(large.body.length > 1_000_000, `${large.body.length} bytes`);
    assert.equal(large.headers['content-length'], undefined);
    assert.equal(large.headers['transfer-encoding'], 'chunked');
    const head = await get(url('json', { query: thingsQuery }), {}, 'HEAD');
    assert.deepEqual([head.status, head.headers['content-length'], head.body.length], [200, undefined, 0]);
  });

  test('errors are plain JSON, not compressed', async () => {
    const res = await get(url('json', { query: 'select nope from things' }), { 'accept-encoding': 'gzip, br' });
    assert.equal(res.status, 400);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.match(JSON.parse(res.body.toString()).error, /no such column: nope/);
  });
});

describe('Accept-Encoding negotiation', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['GZIP', 'gzip'],
    // Equal q-values: the client's order decides.
    ['gzip, deflate, br', 'gzip'],
    ['br, gzip', 'br'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['gzip;q=0.5, identity', 'identity'],
    ['gzip;q=0, br', 'br'],
    ['gzip;q=0', 'identity'],
    ['identity', 'identity'],
    ['*', 'br'],
    ['br;q=0, *', 'gzip'],
    // Nothing acceptable, identity refused too: sent without a coding rather than refused (RFC 7231 §5.3.4).
    ['*;q=0', 'identity'],
    ['identity;q=0', 'identity'],
    ['deflate', 'identity'],
    ['compress, x-gzip, zstd', 'identity'],
  ];
  for (const [header, expected] of cases) {
    test(`${JSON.stringify(header ?? null)} → ${expected}`, async () => {
      const plain = await get(url('ndjson', { query: thingsQuery }));
      const res = await get(url('ndjson', { query: thingsQuery }), header === undefined ? {} : { 'accept-encoding': header });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], expected === 'identity' ? undefined : expected);
      assert.deepEqual(expected === 'identity' ? res.body : decode(expected, res.body), plain.body);
    });
  }
});

describe('streaming under compression', () => {
  /** Endless rows, each a full scan of `big`: a few rows every 200 ms (the query process's flush interval). */
  const slowRows =
    'with recursive c(x) as (select 1 union all select x + 1 from c) ' +
    'select x, (select count(*) from big where id % 1000 = x % 1000) as n from c';
  /** Endless fast rows of random text (compresses about 2:1, so buffers hold little). */
  const fastRows = 'with recursive c(x) as (select 1 union all select x + 1 from c) select x, hex(randomblob(48)) as h from c';

  test('a failure after the first byte leaves the compressed body incomplete', async () => {
    // Rows stream out, then abs() overflows on the last row: SQLite fails mid-result.
    const failing = 'select id, t, case when id = 200000 then abs(-9223372036854775808) else 0 end as boom from big';
    for (const coding of ['gzip', 'br']) {
      const from = (await writtenDownloads(server)).length;
      const res = await get(url('json', { query: failing }), { 'accept-encoding': coding });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], coding);
      assert.equal(res.complete, false, `${coding}: the body must not end cleanly`);
      // What did arrive is the rows before the failure, never a closed JSON array.
      const text = decode(coding, res.body).toString();
      assert.ok(text.startsWith('[\n{"id":1,'), text.slice(0, 40));
      assert.ok(!text.endsWith('\n]'));
      const [row] = await downloadsFrom(server, from, 1);
      assert.equal(row!.status, 400);
    }
  });

  test('each chunk is flushed: rows arrive decodable while the query is still running', async () => {
    for (const coding of ['gzip', 'br']) {
      const res = await request(url('ndjson', { query: slowRows }), { 'accept-encoding': coding });
      assert.equal(res.headers['content-encoding'], coding);
      let received = Buffer.alloc(0);
      let text = '';
      // The query never ends by itself, so whole rows can only come from a flush mid-stream.
      for await (const chunk of res) {
        received = Buffer.concat([received, chunk as Buffer]);
        text = decode(coding, received).toString();
        if (text.includes('\n')) break;
      }
      assert.match(text, /^\{"x":1,"n":200\}\n/);
      res.destroy();
    }
  });

  // gzip is deflated in the query process, its output spooled; br's compressor is in the server,
  // before the spool, and must stop taking the process's output once the spool is full.
  for (const coding of ['gzip', 'br']) {
    test(`${coding}: a paused client pauses the query process through the compressor, once its spool is full`, async (t) => {
      // A spool of 1 MB, so that "full" comes soon; the query limit is far away, as the pause is not
      // the query's end here (a full spool's wait counts as query time: docs/api.md's limits).
      const paused = await startServer({ spoolResponseMb: 1, queryTimeoutMs: 120_000, clientIdleTimeoutMs: 60_000 });
      t.after(() => paused.close());
      const { key: pausedKey } = await paused.catalog.addUser('alice');
      await paused.catalog.addScraper('alice/mixed', dataFile, { isPrivate: false, description: '' });
      const from = (await writtenDownloads(paused)).length;
      const res = await request(dataUrl(paused.base, 'alice/mixed', 'json', { key: pausedKey, query: fastRows }), {
        'accept-encoding': coding,
      });
      assert.equal(res.headers['content-encoding'], coding);
      // Read nothing. The query never ends: only once the socket, the spool and the compressor are
      // all full can its process come to rest, stopped on its output. Were the compressor to read
      // on regardless, the spool would never fill (gzip) or the compressed output would pile up
      // before it (br), and the process would run on.
      // At rest: no CPU used over a window of 200 ms, watched for however long it takes to come. The
      // windows, and the 1.5 s below, are what is measured, not waits for an event.
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      await waitFor(async () => {
        const cpu = queryProcessesCpuMs();
        await pause(200);
        return queryProcessesCpuMs() === cpu;
      }, 30_000);
      // Then it must stay at rest (these 1.5 s are what is measured)...
      const cpuBefore = queryProcessesCpuMs();
      await pause(1500);
      const cpuUsed = queryProcessesCpuMs() - cpuBefore;
      assert.ok(cpuUsed < 300, `the query processes used ${cpuUsed} ms of CPU in 1.5 s while the client read nothing`);
      // ...and go on where it stopped once the client reads again: the rows in order, from the first.
      const received: Buffer[] = [];
      let length = 0;
      for await (const chunk of res) {
        received.push(chunk as Buffer);
        length += (chunk as Buffer).length;
        if (length > 4_000_000) break;
      }
      res.destroy();
      const body = decode(coding, Buffer.concat(received)).toString();
      assert.ok(body.startsWith('[\n{"x":1,"h":"'), body.slice(0, 40));
      const lines = body.split('\n').slice(1, -1);
      // Rows after the first begin with their comma.
      lines.forEach((line, i) => assert.ok(line.startsWith(`${i ? ',' : ''}{"x":${i + 1},`), `row ${i + 1}: ${line.slice(0, 30)}`));
      assert.ok(lines.length > 20_000, `${lines.length} rows after the pause`);
      const [row] = await downloadsFrom(paused, from, 1);
      // The client left long before the query's limit.
      assert.equal(row!.status, 499);
    });
  }

  test('a client that goes away stops its query: the only query process is freed at once', async (t) => {
    // One process and a limit far away: only killing the query on the abort frees the process.
    const single = await startServer({ queryProcesses: 1, queryTimeoutMs: 120_000 });
    t.after(() => single.close());
    const { key: singleKey } = await single.catalog.addUser('alice');
    await single.catalog.addScraper('alice/mixed', dataFile, { isPrivate: false, description: '' });
    for (const coding of ['gzip', 'br']) {
      const from = (await writtenDownloads(single)).length;
      const res = await request(dataUrl(single.base, 'alice/mixed', 'ndjson', { key: singleKey, query: fastRows }), {
        'accept-encoding': coding,
      });
      for await (const chunk of res) if ((chunk as Buffer).length > 0) break;
      res.destroy();
      const quick = await fetch(dataUrl(single.base, 'alice/mixed', 'json', { key: singleKey, query: 'select 1 as one' }), {
        signal: AbortSignal.timeout(30_000),
      });
      assert.deepEqual(await quick.json(), [{ one: 1 }], coding);
      const [row] = await downloadsFrom(single, from, 1);
      assert.equal(row!.status, 499, coding);
    }
    assert.match(single.logs(), /"cut":"client-gone"/);
  });
});
