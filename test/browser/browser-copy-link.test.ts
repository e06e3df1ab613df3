/**
 * "Copy a link to this view" in real headless Chromium: the button puts on the clipboard the view's
 * address naming the data version it shows, and that link still shows that version's rows after a publish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchBrowser, openPage } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { versionDb } from '../helpers/upload.js';

describe('copying a pinned link in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer();
    await server.catalog.addUser('alice');
    await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
    await server.catalog.publish('alice/plants', versionDb(2));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the copied link names the version shown, and shows its rows after the next publish', async () => {
    const { page, errors } = await openPage(browser);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    await page.goto(`${server.base}/alice/plants/tables/t?_size=10`);
    await page.getByRole('button', { name: 'Copy a link to this view' }).click();
    await page.locator('.copy-done', { hasText: 'Copied.' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, `${server.base}/alice/plants/tables/t?_size=10&version=2`);

    await server.catalog.publish('alice/plants', versionDb(3));
    await page.goto(copied);
    assert.equal(await page.locator('.data-version strong').textContent(), '2');
    const cells = await page.locator('table.browse tbody tr td:nth-child(2)').allTextContents();
    assert.deepEqual(
      cells,
      Array.from({ length: 10 }, () => '2'),
    );
    await page.locator('a.current-data').click();
    await page.waitForURL(`${server.base}/alice/plants/tables/t?_size=10`);
    assert.equal(await page.locator('.data-version strong').textContent(), '3');
    assert.deepEqual(errors, []);
  });
});
