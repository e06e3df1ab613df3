import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { makeDb } from '../helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from '../helpers/server.js';

const rowCount = 1_000_000;
let server: TestServer;
let key: string;

before(async () => {
  // Two minutes for each export: a million rows within the default 10 s is the bench's business, and
  // a machine busy with other test files may take longer.
  server = await startServer({ queryTimeoutMs: 120_000 });
  ({ key } = await server.catalog.addUser('alice'));
  const db = makeDb(
    server.dataDir,
    'million.sqlite',
    `
    create table t (id integer primary key, n integer, r real, s text);
    with recursive c(x) as (select 1 union all select x + 1 from c where x < ${rowCount})
    insert into t select x, x * 7, x / 3.0, printf('row %d of a long export, with "quotes", commas', x) from c;`,
  );
  await server.catalog.addScraper('alice/million', db, { isPrivate: false, description: '' });
});
after(() => server.close());

/** Streams a response, counting bytes and row separators without keeping the body. */
function drain(url: string): Promise<{ status: number; bytes: number; newlines: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let bytes = 0;
        let newlines = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines += 1;
        });
        res.on('end', () => resolve({ status: res.statusCode!, bytes, newlines, complete: res.complete }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('a 1,000,000-row export streams with the server memory flat', async (t) => {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    for (const format of ['json', 'csv', 'ndjson']) {
      const result = await drain(dataUrl(server.base, 'alice/million', format, { key, query: 'select * from t' }));
      assert.equal(result.status, 200, format);
      assert.ok(result.complete, `${format} body complete`);
      // json: "[\n", then one "\n" before each following row and the closing "\n]"; csv and ndjson: a line each (+ header).
      const expected = { json: rowCount + 1, csv: rowCount + 1, ndjson: rowCount }[format];
      assert.equal(result.newlines, expected, `${format} rows`);
      assert.ok(result.bytes > 50_000_000, `${format} bytes ${result.bytes}`);
    }
  } finally {
    clearInterval(sampler);
  }
  const growthMb = (peak - before) / 1024 / 1024;
  t.diagnostic(`server RSS grew ${growthMb.toFixed(1)} MB over three exports`);
  // The body is ~70 MB per format; holding any export in memory would show as far more than this.
  assert.ok(growthMb < 100, `server memory grew ${growthMb.toFixed(0)} MB`);
});
