/**
 * Saved queries in real headless Chromium, as their owner makes and uses them: sign in, write a query
 * with two `:named` parameters in the scraper page's builder, save it with "Save this query", land
 * on its page, fill in the two parameters and see its rows; its edit page and delete form. Without
 * JavaScript, the builder's form saves the SQL the page was rendered with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/accounts/passwords.js';
import { browserSkip, launchBrowser, openPage, screenshot, startPlanningServer } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';

const password = 'correct horse battery';
const twoParams = 'select title, n from "data" where n >= :least and title like :words order by n';

describe('saved queries in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;

  /** Signs alice in through the log-in form. */
  async function signIn(page: Page): Promise<void> {
    await page.goto(`${server.base}/login`);
    await page.fill('#login-name', 'alice');
    await page.fill('#login-password', password);
    await submit(page, 'form[action="/login"] button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/account');
  }

  /** Clicks a submit button and waits for the page it leads to. */
  async function submit(page: Page, selector: string): Promise<void> {
    await Promise.all([page.waitForEvent('framenavigated').then(() => page.waitForLoadState()), page.click(selector)]);
  }

  before(async () => {
    ({ server } = await startPlanningServer('Planning'));
    const alice = (await server.store.findAccount('alice'))!;
    await server.store.setPasswordHash(alice.id, await hashPassword(password));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('write a query with two parameters in the builder → Save this query → its page → fill both → its rows', async (t) => {
    const { page, errors } = await openPage(browser);
    await signIn(page);
    await page.goto(`${server.base}/alice/planning`);
    await page.fill('#qb-sql', twoParams);
    await page.click('summary:text("Save this query")');
    await page.fill('#save-name', 'by-size');
    await page.fill('#save-title', 'Applications by size');
    await page.fill('#save-description', 'From a size on, with words in the title');
    await screenshot(t, page, 'save-this-query');
    await submit(page, 'form.save-query button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/alice/planning/queries/by-size');
    // The SQL typed, not the one the page was rendered with, and its parameters as they were.
    assert.equal((await server.catalog.listQueries('alice/planning'))[0]?.sql, twoParams);

    assert.equal(await page.textContent('h1'), 'Applications by size');
    await page.fill('input[name="least"]', '2');
    await page.fill('input[name="words"]', '%o%');
    await submit(page, 'form.query-params button[type="submit"]');
    const rows = await page.$$eval('table.data tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    assert.deepEqual(rows, [
      ['Deck & carport', '2'],
      ['Pool <fenced>', '3'],
    ]);
    await screenshot(t, page, 'saved-query-page');

    await submit(page, 'a:text("Edit this query")');
    assert.equal(new URL(page.url()).pathname, '/alice/planning/queries/by-size/edit');
    await page.fill('#query-title', 'Bigger applications');
    await screenshot(t, page, 'saved-query-edit');
    await submit(page, 'form.saved-query-form button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/alice/planning/queries/by-size');
    assert.equal(await page.textContent('h1'), 'Bigger applications');

    await page.goto(`${server.base}/alice/planning/queries/by-size/edit`);
    await page.check('#delete-confirm');
    await submit(page, 'form.delete-query button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/alice/planning');
    assert.deepEqual(await server.catalog.listQueries('alice/planning'), []);
    assert.deepEqual(errors, []);
  });

  test('without JavaScript, the builder saves the SQL it last showed', async () => {
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await signIn(page);
    await page.goto(`${server.base}/alice/planning`);
    await page.fill('#qb-sql', 'select title from "data" where n = :n');
    await submit(page, 'form.builder-form button[type="submit"]');
    await page.click('summary:text("Save this query")');
    await page.fill('#save-name', 'one-size');
    await submit(page, 'form.save-query button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/alice/planning/queries/one-size');
    const saved = await server.catalog.listQueries('alice/planning');
    assert.equal(saved.find((q) => q.name === 'one-size')?.sql, 'select title from "data" where n = :n');
  });
});
