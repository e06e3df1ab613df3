/**
 * Every metric label takes a closed set of values: a thousand made-up values through each labelled
 * path of a real HTTP server (formats, paths, methods, callbacks) leave /metrics with as many series
 * as a few requests did, the made-up ones counted as `other`. None of the requests runs a query: the
 * service listens in this process, without query processes.
 */
import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { after, before, test } from 'node:test';
import { rawExchange } from './helpers/raw-http.js';
import { startApp, type ListeningApp } from './helpers/app.js';
import { versionDb } from './helpers/upload.js';

const madeUp = 1000;
const metricsToken = 'a-metrics-token-for-this-test';

/** Each series of a `siphon_*` metric (`name{labels}`), histograms' buckets included. */
async function series(metricsUrl: string): Promise<string[]> {
  const text = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('siphon_'))
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
}

/** Runs `send` for 0 … n-1, a few at a time. */
async function each(n: number, send: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await send(next++);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

let server: ListeningApp;
let key: string;

before(async () => {
  server = await startApp({ metricsToken, keyConcurrency: 32, keyQueue: 64 });
  ({ key } = await server.catalog.addUser('alice'));
  await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
});
after(() => server.close());

test(`${madeUp} made-up formats, paths, methods and callbacks add no series: each label takes only values Siphon defines`, async () => {
  const metricsUrl = `${server.base}/metrics`;
  const port = Number(new URL(server.base).port);
  // Every kind of request once, so that the series they make exist before the made-up values come.
  const known = async (i: number) => {
    const answers = await Promise.all([
      fetch(`${server.base}/alice/plants/data.x${i}?key=${key}`),
      // A callback makes a call `jsonp` (refused here for its missing query: no query process is needed).
      fetch(`${server.base}/alice/plants/data.json?key=${key}&callback=cb${i}`),
      fetch(`${server.base}/p${i}/q${i}/r${i}/s${i}`),
      fetch(`${server.base}/alice/p${i}`),
      fetch(`${server.base}/alice/p${i}/data.csv?key=${key}`),
      fetch(`${server.base}/assets/x${i}.css`),
      fetch(`${server.base}/x${i}`, { method: 'PATCH' }),
    ]);
    for (const res of answers) {
      await res.arrayBuffer();
      assert.ok(res.status < 500, `${res.url}: ${res.status}`);
    }
  };
  const methods = (i: number) =>
    Promise.all(
      METHODS.filter((m) => m !== 'CONNECT').map(async (method) => {
        const exchange = await rawExchange(port, `${method} /m${i}/${method} HTTP/1.1\r\nHost: h${i}\r\nConnection: close\r\n\r\n`, {
          head: method === 'HEAD',
        });
        assert.ok((exchange.responses[0]?.status ?? 0) < 500, `${method}: ${exchange.responses[0]?.status}`);
      }),
    );
  await known(0);
  await methods(0);
  const before = await series(metricsUrl);

  await each(madeUp, (i) => known(i + 1));
  // Node's parser takes only the methods it knows (about 35): each is sent with made-up paths.
  await each(madeUp / 50, (i) => methods(i + 1));

  const afterwards = await series(metricsUrl);
  // A closed set can still show a value for the first time (a 429 under load, a status): a few, never one per request.
  const added = afterwards.filter((name) => !before.includes(name));
  assert.ok(added.length <= 40, `${added.length} series were added, as ${added.slice(0, 5).join(', ')}`);
  assert.ok(afterwards.includes('siphon_rows_streamed_total{format="other"}'), 'an unknown format counts as other');
  assert.ok(afterwards.includes('siphon_rows_streamed_total{format="jsonp"}'), 'a callback counts as jsonp');
  assert.ok(afterwards.includes('siphon_http_requests_total{route="none",status="404"}'), 'a path no route takes counts as none');
  for (const name of afterwards) assert.doesNotMatch(name, /x1\d|cb\d|p\d|m\d/, 'no label holds a value from a request');
});
