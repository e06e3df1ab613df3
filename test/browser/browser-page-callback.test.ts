/**
 * The payload once found on the scraper page, `?callback=a(){}alert(document['domain']);function b`,
 * does not run: not on the page, and not from the JSONP example a visitor copies from it (with their
 * key pasted) into a page of their own, which is where it ran before.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserScene, browserSkip, openPage, type WatchedPage } from '../helpers/browser.js';

const payload = "a(){}alert(document['domain']);function b";

/** What a page's scripts logged, less the browser's own note of the other origin's missing favicon. */
const logged = (watched: WatchedPage) => watched.console.filter((m) => !m.startsWith('Failed to load resource'));

describe('a JSONP callback from the page address', { skip: browserSkip }, () => {
  const scene = browserScene();

  /**
   * Opens the scraper page with `?callback=`, pastes the key, and runs the JSONP example it then
   * shows in a page on another origin; returns both pages as watched, and the example.
   */
  async function copyAndRun(callback: string): Promise<{ scraperPage: WatchedPage; thirdParty: WatchedPage; example: string }> {
    const {
      server,
      key,
      browser,
      sites: [other],
    } = scene;
    const scraperPage = await openPage(browser);
    const response = await scraperPage.page.goto(`${server.base}/alice/planning?${new URLSearchParams({ format: 'json', callback })}`);
    assert.ok(response);
    await scraperPage.page.fill('#qb-key', key);
    const example = (await scraperPage.page.locator('code[data-example="jsonp"]').textContent()) ?? '';
    const name = `/jsonp-${other.base.length}-${Math.random().toString(36).slice(2)}`;
    other.serve(name, `<!doctype html><title>My page</title>\n${example}`);
    const thirdParty = await openPage(browser);
    await thirdParty.page.goto(`${other.base}${name}`, { waitUntil: 'networkidle' });
    return { scraperPage, thirdParty, example };
  }

  test('the payload runs nowhere: no dialog, no script error, and the example calls the default callback', async () => {
    const { scraperPage, thirdParty, example } = await copyAndRun(payload);
    for (const watched of [scraperPage, thirdParty]) {
      assert.deepEqual(watched.dialogs, [], 'a dialog opened');
      assert.deepEqual(watched.errors, []);
    }
    assert.ok(!example.includes('alert'), example);
    assert.match(example, /function showRows\(rows\)/);
    assert.equal(await scraperPage.page.locator('#qb-callback-refused').count(), 1, 'the page says the callback was left out');
    // The example did run, as showRows: it logged the rows.
    assert.deepEqual(logged(thirdParty), ['[Object, Object, Object, Object]']);
  });

  test('the same harness runs a valid callback from the address, so it would have caught the payload running', async () => {
    const { thirdParty, example } = await copyAndRun('shownRows');
    assert.match(example, /function shownRows\(rows\)/);
    assert.deepEqual(thirdParty.errors, []);
    assert.deepEqual(logged(thirdParty), ['[Object, Object, Object, Object]'], 'the example ran and logged its rows');
  });
});
