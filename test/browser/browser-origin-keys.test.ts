/**
 * A key limited to one web origin, in real headless Chromium: a page of that origin gets rows with
 * fetch() (X-API-Key) and with JSONP (a <script> tag, whose Referer tells the origin); a page of
 * another origin gets the refusal, as does a page that hides its Referer. Both sites are loopback
 * servers on ports of their own, so three origins in all with the API.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { errors } from '../../src/errors.js';
import { browserScene, browserSkip, jsonpCalls, openPage, type OtherOrigin } from '../helpers/browser.js';
import { dataUrl } from '../helpers/server.js';

const query = 'select title, n from "data" where n < 3 order by n';
const rows = [
  { title: 'Two storey dwelling', n: 1 },
  { title: 'Deck & carport', n: 2 },
];

describe('a key limited to one origin, in a browser', { skip: browserSkip }, () => {
  const scene = browserScene(2);
  /** The site the key is for, and one it is not for. */
  let allowed: OtherOrigin;
  let elsewhere: OtherOrigin;
  /** A key of alice's limited to the allowed site. */
  let key: string;
  before(async () => {
    [allowed, elsewhere] = scene.sites as [OtherOrigin, OtherOrigin];
    key = await scene.server.catalog.createKey('alice', { origins: [allowed.base], label: 'the allowed site' });
  });

  /** fetch() with the key in X-API-Key from a page of `site`: the status and body, or the error fetch threw. */
  async function fetchFrom(site: OtherOrigin): Promise<unknown> {
    const { page, errors: pageErrors } = await openPage(scene.browser);
    await page.goto(`${site.base}/`);
    const result = await page.evaluate(
      async ({ url, key }) => {
        try {
          const response = await fetch(url, { headers: { 'X-API-Key': key } });
          return { status: response.status, body: (await response.json()) as unknown };
        } catch (err) {
          return { threw: String(err) };
        }
      },
      { url: dataUrl(scene.server.base, 'alice/planning', 'json', { query }), key },
    );
    assert.deepEqual(pageErrors, []);
    return result;
  }

  const refusal = (site: OtherOrigin | undefined) => errors.keyOrigin(site && new URL(site.base).origin).message;

  test('three origins: the API, the allowed site, another site', () => {
    assert.equal(new Set([scene.server.base, allowed.base, elsewhere.base].map((u) => new URL(u).origin)).size, 3);
  });

  test('fetch() from a page of its origin gets the rows', async () => {
    assert.deepEqual(await fetchFrom(allowed), { status: 200, body: rows });
  });

  test('fetch() from a page of another origin is refused, and the page can read why', async () => {
    assert.deepEqual(await fetchFrom(elsewhere), { status: 403, body: { error: refusal(elsewhere) } });
  });

  test('JSONP from a page of its origin gets the rows', async () => {
    const src = dataUrl(scene.server.base, 'alice/planning', 'json', { key, query, callback: 'got' });
    assert.deepEqual(await jsonpCalls(scene.browser, allowed, src), [rows]);
  });

  test('JSONP from a page of another origin gets the refusal in its callback, hiding its Referer or not', async () => {
    const src = dataUrl(scene.server.base, 'alice/planning', 'json', { key, query, callback: 'got' });
    assert.deepEqual(await jsonpCalls(scene.browser, elsewhere, src), [{ error: refusal(elsewhere), status: 403 }]);
    // A <script> tag sends no Origin: with its Referer hidden the call says nothing of where it comes from.
    assert.deepEqual(await jsonpCalls(scene.browser, elsewhere, src, 'referrerpolicy="no-referrer"'), [
      { error: refusal(undefined), status: 403 },
    ]);
  });
});
