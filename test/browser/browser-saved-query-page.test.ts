/**
 * A saved query's page used as a visitor uses it, in real headless Chromium and without any script of
 * ours: open it from the scraper page's list, fill in its two parameters and press Run, read the rows,
 * follow nothing hostile (no dialog, no script error). Screenshots are kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { makeDb } from '../helpers/fixture-db.js';
import { startServer, type TestServer } from '../helpers/server.js';

const hostile = '<img src=x onerror=alert(1)>';

describe('a saved query page in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer();
    await server.catalog.addUser('alice');
    const file = makeDb(
      server.dataDir,
      'planning.sqlite',
      `create table applications (suburb text, title text, link text, cost integer);
       with recursive c(x) as (select 1 union all select x + 1 from c where x < 200)
       insert into applications select case x % 3 when 0 then 'Katoomba' when 1 then 'Leura' else '${hostile}' end,
         'Application ' || x, 'https://example.org/da/' || x, x * 100 from c;`,
    );
    await server.catalog.addScraper('alice/planning', file, { isPrivate: false, description: 'Development applications' });
    await server.catalog.saveQuery(
      'alice/planning',
      {
        name: 'costly-in-suburb',
        title: 'Costly applications in a suburb',
        description: `Applications in one suburb costing at least a sum.\nNewest rules since 2026. ${hostile}`,
        sql: 'select title, link, cost from applications where suburb = :suburb and cost >= :min_cost order by cost desc',
        isPrivate: false,
      },
      100_000,
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('from the scraper page to the rows: fill in both parameters, Run, the rows they select', async (t) => {
    const { page, errors, dialogs } = await openPage(browser);
    await page.goto(`${server.base}/alice/planning`);
    await page.getByRole('link', { name: 'Costly applications in a suburb' }).click();
    await page.waitForLoadState('load');
    assert.equal(await page.locator('table.browse').count(), 0);
    assert.match((await page.locator('.missing-params').textContent()) ?? '', /:suburb, :min_cost/);
    await screenshot(t, page, 'saved-query-page-form');

    await page.getByLabel(':suburb').fill(hostile);
    await page.getByLabel(':min_cost').fill('19000');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.waitForLoadState('load');
    assert.deepEqual(await page.locator('table.browse tbody tr td:first-child').allTextContents(), [
      'Application 200',
      'Application 197',
      'Application 194',
      'Application 191',
    ]);
    assert.equal(await page.getByLabel(':suburb').inputValue(), hostile);
    const values = new URLSearchParams({ suburb: hostile, min_cost: '19000' });
    const json = await page.locator('p.twins').getByRole('link', { name: 'JSON', exact: true }).getAttribute('href');
    assert.equal(json, `/alice/planning/queries/costly-in-suburb.json?${values}`);
    const button = await page.getByRole('link', { name: 'JSON', description: 'every row as JSON' }).getAttribute('href');
    assert.equal(button, `/alice/planning/download/queries/costly-in-suburb.json?${values}`);
    await screenshot(t, page, 'saved-query-page-rows');
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
  });
});
