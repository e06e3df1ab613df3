/**
 * /metrics from real servers after real requests: the numbers move as the requests say (an export
 * adds its rows and bytes, a 429 is counted as rate-limited, a query timeout lands in the
 * histogram), on a port of its own or on the public port behind the token, and nowhere when off.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { waitFor } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { requestRecords } from './helpers/log-lines.js';
import { runaway } from './helpers/query-pool.js';
import { dataUrl, startServer, writtenDownloads, type TestServer } from './helpers/server.js';
import { putBody, versionDb } from './helpers/upload.js';

type Samples = Map<string, number>;

/** `name{labels} value` lines by `name{labels}`, as Prometheus reads them. */
function parse(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

async function scrape(url: string, init?: RequestInit): Promise<Samples> {
  const res = await fetch(url, init);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parse(await res.text());
}

/** How far each sample moved between two scrapes (0 for one that did not exist and still does not). */
const moved = (before: Samples, after: Samples, name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);

const dataRoute = 'route="/:owner/:scraper/data.:format"';
/** Rows enough for the export to be more than a few packets. */
const rowsSql = `create table data (id integer primary key, t text);
  with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000) insert into data select x, printf('row %05d', x) from c;`;

describe('metrics on a port of their own', () => {
  let server: TestServer;
  let key: string;
  let metricsUrl: string;

  before(async () => {
    server = await startServer({ metricsPort: 0, rateLimitPerMinute: 5, queryTimeoutMs: 1000, keyConcurrency: 4 });
    metricsUrl = server.metricsUrl!;
    ({ key } = await server.catalog.addUser('alice'));
    await server.catalog.addScraper('alice/rows', makeDb(server.dataDir, 'rows.sqlite', rowsSql), { isPrivate: false, description: '' });
    await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
  });
  after(() => server.close());

  test('are not on the public port, and answer nothing but /metrics', async () => {
    assert.notEqual(new URL(metricsUrl).port, new URL(server.base).port);
    const publicPort = await fetch(`${server.base}/metrics`);
    // The page of an account that cannot exist: `metrics` is not a name an account may have.
    assert.equal(publicPort.status, 404);
    assert.doesNotMatch(await publicPort.text(), /siphon_/);
    const other = await fetch(new URL('/other', metricsUrl));
    assert.equal(other.status, 404);
    assert.deepEqual(Object.keys((await other.json()) as object), ['error']);
    const samples = await scrape(metricsUrl);
    assert.equal(samples.get('siphon_query_processes_ready{pool="api"}'), 2);
    assert.equal(samples.get('siphon_query_processes_ready{pool="previews"}'), 1);
    assert.equal(samples.get('siphon_query_processes_busy{pool="api"}'), 0);
    assert.ok(samples.has('process_cpu_user_seconds_total'), "Node's own metrics too");
  });

  test('an export adds its rows and bytes, and its request by route and status', async () => {
    const before = await scrape(metricsUrl);
    const res = await fetch(dataUrl(server.base, 'alice/rows', 'csv', { key, query: 'select * from data' }), {
      headers: { 'accept-encoding': 'identity' },
    });
    assert.equal(res.status, 200);
    const body = await res.text();
    const after = await scrape(metricsUrl);
    assert.equal(moved(before, after, 'siphon_rows_streamed_total{format="csv"}'), 5000);
    assert.equal(moved(before, after, 'siphon_bytes_streamed_total{format="csv"}'), Buffer.byteLength(body));
    assert.equal(moved(before, after, `siphon_http_requests_total{${dataRoute},status="200"}`), 1);
    assert.equal(moved(before, after, 'siphon_query_duration_seconds_count{outcome="ok"}'), 1);
    assert.equal(moved(before, after, 'siphon_queue_wait_seconds_count{outcome="ok"}'), 1);
  });

  test('downloads are counted as recorded once written, and pending until then', async () => {
    await writtenDownloads(server);
    const before = await scrape(metricsUrl);
    assert.equal(before.get('siphon_downloads_pending'), 0);
    for (let i = 0; i < 3; i += 1) await (await fetch(dataUrl(server.base, 'alice/rows', 'json', { key, query: 'select 1 as x' }))).text();
    const written = (await writtenDownloads(server)).length;
    const after = await scrape(metricsUrl);
    assert.equal(moved(before, after, 'siphon_downloads_recorded_total'), 3);
    assert.equal(after.get('siphon_downloads_recorded_total'), written);
    assert.equal(after.get('siphon_downloads_pending'), 0);
  });

  test('a query past its time limit is in the histogram as a timeout; queries waiting are a queue length', async () => {
    const { key: bob } = await server.catalog.addUser('bob');
    const before = await scrape(metricsUrl);
    // Two slow queries take both query processes; a third waits for one.
    const slow = [0, 1, 2].map(() => fetch(dataUrl(server.base, 'alice/rows', 'json', { key: bob, query: runaway })));
    let during = before;
    await waitFor(async () => {
      during = await scrape(metricsUrl);
      return during.get('siphon_queue_length{pool="api"}') === 1;
    }, 5000);
    assert.equal(during.get('siphon_query_processes_busy{pool="api"}'), 2);
    const answers = await Promise.all(slow.map(async (r) => (await r).headers.get('siphon-error-code')));
    assert.deepEqual(answers, ['SIPHON_ERR_QUERY_TIMEOUT', 'SIPHON_ERR_QUERY_TIMEOUT', 'SIPHON_ERR_QUERY_TIMEOUT']);
    const after = await scrape(metricsUrl);
    assert.equal(moved(before, after, 'siphon_query_duration_seconds_count{outcome="timeout"}'), 3);
    // Each ran about a second (the limit): none in the buckets below half a second, all by 2.5 s.
    assert.equal(moved(before, after, 'siphon_query_duration_seconds_bucket{le="0.5",outcome="timeout"}'), 0);
    assert.equal(moved(before, after, 'siphon_query_duration_seconds_bucket{le="+Inf",outcome="timeout"}'), 3);
    assert.ok(moved(before, after, 'siphon_query_duration_seconds_sum{outcome="timeout"}') >= 2.9);
    assert.equal(moved(before, after, 'siphon_http_requests_refused_total{code="SIPHON_ERR_QUERY_TIMEOUT"}'), 3);
    assert.equal(moved(before, after, `siphon_http_requests_total{${dataRoute},status="400"}`), 3);
    assert.equal(after.get('siphon_queue_length{pool="api"}'), 0);
  });

  test('a 429 of the rate limit is counted as rate-limited and refused, not as streamed', async () => {
    const { key: carol } = await server.catalog.addUser('carol');
    const before = await scrape(metricsUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await fetch(dataUrl(server.base, 'alice/rows', 'json', { key: carol, query: 'select 1 as x' }));
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    const after = await scrape(metricsUrl);
    assert.equal(moved(before, after, 'siphon_rate_limited_total'), 2);
    assert.equal(moved(before, after, 'siphon_http_requests_refused_total{code="SIPHON_ERR_RATE_LIMITED"}'), 2);
    assert.equal(moved(before, after, `siphon_http_requests_total{${dataRoute},status="429"}`), 2);
    assert.equal(moved(before, after, 'siphon_rows_streamed_total{format="json"}'), 5);
  });

  test('publishes are counted by outcome, and refusals of every kind by code', async () => {
    const before = await scrape(metricsUrl);
    assert.equal((await putBody(server.base, 'alice/plants', readFileSync(versionDb(2)), { 'x-api-key': key })).status, 200);
    assert.equal((await putBody(server.base, 'alice/plants', Buffer.from('not a database'), { 'x-api-key': key })).status, 400);
    assert.equal((await fetch(`${server.base}/alice/rows/data.json?query=select+1`)).status, 401);
    assert.equal((await fetch(`${server.base}/no/such/page/here`)).status, 404);
    const after = await scrape(metricsUrl);
    assert.equal(moved(before, after, 'siphon_publishes_total{outcome="published"}'), 1);
    assert.equal(moved(before, after, 'siphon_publishes_total{outcome="refused"}'), 1);
    assert.equal(moved(before, after, 'siphon_http_requests_refused_total{code="SIPHON_ERR_DATA_INVALID"}'), 1);
    assert.equal(moved(before, after, 'siphon_http_requests_refused_total{code="SIPHON_ERR_KEY_MISSING"}'), 1);
    assert.equal(moved(before, after, 'siphon_http_requests_total{route="none",status="404"}'), 1);
  });

  test('the metrics count what the log says: one request line for each request counted', async () => {
    const samples = await scrape(metricsUrl);
    const counted = [...samples].filter(([name]) => name.startsWith('siphon_http_requests_total{')).reduce((n, [, v]) => n + v, 0);
    assert.equal(counted, requestRecords(server.logs()).length);
  });
});

describe('metrics on the public port behind a token', () => {
  const token = 'a-metrics-token-of-some-length';
  let server: TestServer;

  before(async () => {
    server = await startServer({ metricsToken: token });
  });
  after(() => server.close());

  test('without the token, or with another, /metrics is refused 401; with it, served', async () => {
    assert.equal(server.metricsUrl, `${server.base}/metrics`);
    for (const authorization of [
      undefined,
      'Bearer wrong-token-of-some-length',
      `Bearer ${token}x`,
      `Basic ${token}`,
      token,
      `Bearer ${token.slice(0, -1)}`,
    ]) {
      const res = await fetch(`${server.base}/metrics`, { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401, String(authorization));
      assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_METRICS_TOKEN');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      assert.ok(res.headers.get('x-request-id'));
      const body = await res.text();
      assert.ok(!body.includes(token), 'the token is not echoed');
    }
    const samples = await scrape(`${server.base}/metrics`, { headers: { authorization: `bearer ${token}` } });
    assert.equal(samples.get('siphon_http_requests_refused_total{code="SIPHON_ERR_METRICS_TOKEN"}'), 6);
    assert.ok(!server.logs().includes(token), 'the token is never logged');
  });

  test('with a port of their own as well, they are asked for the token there and are not on the public port', async () => {
    const both = await startServer({ metricsToken: token, metricsPort: 0 });
    try {
      assert.equal((await fetch(`${both.base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status, 404);
      const refused = await fetch(both.metricsUrl!);
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_METRICS_TOKEN');
      await scrape(both.metricsUrl!, { headers: { authorization: `Bearer ${token}` } });
    } finally {
      await both.close();
    }
  });
});

test('with neither a metrics port nor a token, there are no metrics', async () => {
  const server = await startServer();
  try {
    assert.equal(server.metricsUrl, undefined);
    const res = await fetch(`${server.base}/metrics`);
    assert.equal(res.status, 404);
    assert.doesNotMatch(await res.text(), /siphon_/);
  } finally {
    await server.close();
  }
});
