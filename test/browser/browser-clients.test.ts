/**
 * Browser clients on another origin, in real headless Chromium: a JSONP <script> tag and a CORS
 * fetch() with the key in the X-API-Key header both get rows, and both see the API's errors.
 * The other origin is a second loopback server on another port.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserScene, browserSkip, jsonpCalls, openPage } from '../helpers/browser.js';
import { dataUrl } from '../helpers/server.js';

const query = 'select title, n from "data" where n < 3 order by n';
const rows = [
  { title: 'Two storey dwelling', n: 1 },
  { title: 'Deck & carport', n: 2 },
];

describe('browser clients on another origin', { skip: browserSkip }, () => {
  const scene = browserScene();

  const jsonp = (src: string) => jsonpCalls(scene.browser, scene.sites[0]!, src);

  test('the server under test is another origin than the page', () => {
    const {
      server,
      sites: [other],
    } = scene;
    assert.notEqual(new URL(server.base).origin, new URL(other.base).origin);
  });

  test('JSONP from a <script> tag on another origin gets the rows', async () => {
    const { server, key } = scene;
    const calls = await jsonp(dataUrl(server.base, 'alice/planning', 'json', { key, query, callback: 'got' }));
    assert.deepEqual(calls, [rows]);
  });

  test('JSONP errors reach the callback with their status (bad key, bad SQL, unknown scraper)', async () => {
    const { server, key } = scene;
    assert.deepEqual(await jsonp(dataUrl(server.base, 'alice/planning', 'json', { key: 'sph_wrong', query, callback: 'got' })), [
      { error: 'API key is not valid. Check it, or create a new one.', status: 401 },
    ]);
    assert.deepEqual(await jsonp(dataUrl(server.base, 'alice/planning', 'json', { key, query: 'select * from nope', callback: 'got' })), [
      { error: 'no such table: nope', status: 400 },
    ]);
    assert.deepEqual(await jsonp(dataUrl(server.base, 'alice/nothing', 'json', { key, query, callback: 'got' })), [
      { error: "can't find scraper alice/nothing", status: 404 },
    ]);
  });

  test('fetch() from another origin with the key in X-API-Key gets rows, after a preflight', async () => {
    const {
      server,
      key,
      browser,
      sites: [other],
    } = scene;
    const { page, errors } = await openPage(browser);
    await page.goto(`${other.base}/`);
    const preflightsBefore = server
      .logs()
      .split('\n')
      .filter((l) => l.includes('"method":"OPTIONS"')).length;
    const result = await page.evaluate(
      async ({ url, key }) => {
        const response = await fetch(url, { headers: { 'X-API-Key': key } });
        return { status: response.status, body: (await response.json()) as unknown };
      },
      { url: dataUrl(server.base, 'alice/planning', 'json', { query }), key },
    );
    assert.deepEqual(result, { status: 200, body: rows });
    const preflights = server
      .logs()
      .split('\n')
      .filter((l) => l.includes('"method":"OPTIONS"')).length;
    assert.equal(preflights, preflightsBefore + 1, 'the browser asked first, because of the X-API-Key header');
    assert.deepEqual(errors, []);
  });

  test('fetch() from another origin can read every format, the exposed headers, and errors', async () => {
    const {
      server,
      key,
      browser,
      sites: [other],
    } = scene;
    const { page } = await openPage(browser);
    await page.goto(`${other.base}/`);
    const call = (url: string, apiKey: string) =>
      page.evaluate(
        async ({ url, apiKey }) => {
          const response = await fetch(url, { headers: { 'X-API-Key': apiKey } });
          return {
            status: response.status,
            type: response.headers.get('content-type'),
            disposition: response.headers.get('content-disposition'),
            etag: response.headers.get('etag'),
            size: (await response.arrayBuffer()).byteLength,
          };
        },
        { url, apiKey },
      );
    for (const format of ['json', 'csv', 'ndjson', 'sqlite']) {
      const r = await call(dataUrl(server.base, 'alice/planning', format, format === 'sqlite' ? {} : { query }), key);
      assert.equal(r.status, 200, format);
      assert.ok(r.size > 0, format);
      if (format === 'csv' || format === 'sqlite') assert.equal(r.disposition, `attachment; filename="alice-planning.${format}"`);
      const direct = await fetch(dataUrl(server.base, 'alice/planning', format, format === 'sqlite' ? {} : { query }), {
        headers: { 'x-api-key': key },
      });
      assert.equal(r.etag, direct.headers.get('etag'), `${format}: the page can read the ETag the server sent`);
    }
    const atom = await call(
      dataUrl(server.base, 'alice/planning', 'atom', {
        query: 'select title, content, link, date from data',
      }),
      key,
    );
    assert.equal(atom.status, 200);
    assert.match(atom.type ?? '', /atom/);
    const errorBody = await page.evaluate(
      async ({ url }) => {
        const response = await fetch(url, { headers: { 'X-API-Key': 'sph_wrong' } });
        return { status: response.status, body: (await response.json()) as unknown };
      },
      { url: dataUrl(server.base, 'alice/planning', 'csv', { query }) },
    );
    assert.deepEqual(errorBody, { status: 401, body: { error: 'API key is not valid. Check it, or create a new one.' } });
  });
});
