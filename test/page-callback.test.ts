/**
 * A page renders the JSONP callback its address gives only when the API would accept it: the
 * builder writes it into the JSONP example as code, which a visitor pastes into a page with their
 * key filled in.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startPlanningServer } from './helpers/browser.js';
import type { TestServer } from './helpers/server.js';

let server: TestServer;

before(async () => {
  ({ server } = await startPlanningServer());
});
after(() => server.close());

/** The payload found on the scraper page: it closes the example's function and runs its own code. */
const payload = "a(){}alert(document['domain']);function b";
const refused = [payload, 'alert(1)', '1abc', 'a..b', 'a b', '</script><script>alert(1)</script>', 'x'.repeat(129), 'a-b'];

async function page(path: string): Promise<{ status: number; text: string; code: string | null }> {
  const res = await fetch(`${server.base}${path}`);
  return { status: res.status, text: await res.text(), code: res.headers.get('siphon-error-code') };
}

test('a callback the API would refuse is left out of the scraper and docs pages, which say so with a 400', async () => {
  for (const callback of refused) {
    for (const path of ['/alice/planning', '/docs', '/docs?scraper=alice/planning', '/documentation/api']) {
      const url = `${path}${path.includes('?') ? '&' : '?'}${new URLSearchParams({ callback, format: 'json' })}`;
      const { status, text, code } = await page(url);
      assert.equal(status, 400, url);
      assert.equal(code, 'SIPHON_ERR_CALLBACK_INVALID', url);
      assert.match(text, /<p class="error" id="qb-callback-refused" role="alert">The callback in this page's address was left out\./, url);
      assert.match(text, /<input id="qb-callback" name="callback" value=""/, url);
      // Neither as sent nor escaped for HTML: the value is nowhere in the page.
      for (const piece of [
        'alert(',
        "document['domain']",
        'document[&#39;domain&#39;]',
        `function ${callback}`,
        `callback=${encodeURIComponent(callback)}`,
        'x'.repeat(129),
      ]) {
        assert.ok(!text.includes(piece), `${url} holds ${piece}`);
      }
      // The examples use the default callback instead.
      assert.match(text, /function showRows\(rows\)/, url);
    }
  }
});

test('a valid callback is shown in the JSONP example and the URL, with a 200 and no notice', async () => {
  for (const callback of ['my.cb_1$', 'showData', '$', 'a'.repeat(128)]) {
    const { status, text, code } = await page(`/alice/planning?${new URLSearchParams({ callback, format: 'json' })}`);
    assert.equal(status, 200, callback);
    assert.equal(code, null, callback);
    assert.ok(!text.includes('qb-callback-refused'), callback);
    const define = callback.includes('.') ? `${callback} = function (rows) {` : `function ${callback}(rows) {`;
    assert.ok(text.includes(define), callback);
    assert.ok(text.includes(`callback=${encodeURIComponent(callback)}`), callback);
  }
  // No callback at all, or an empty one (the form without JavaScript submits the empty field), is no error.
  for (const path of ['/alice/planning', '/alice/planning?table=data&sql=&format=json&callback=']) {
    const { status, text } = await page(path);
    assert.equal(status, 200, path);
    assert.ok(!text.includes('qb-callback-refused'), path);
  }
});
