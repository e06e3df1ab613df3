/**
 * The pages' download buttons in real headless Chromium: a signed-in visitor filters a table from
 * its form and presses "download what you see", and gets every matching row as a file, the API's
 * bytes; an anonymous visitor's press goes to the log-in page and, once logged in, the file comes.
 * Screenshots of the scraper page and a table page, desktop and phone width, are kept.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/accounts/passwords.js';
import { tablePath } from '../../src/views/table-paths.js';
import { browserSkip, launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { makeDb } from '../helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from '../helpers/server.js';

const password = 'a long enough password';

describe('download buttons in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let key: string;

  before(async () => {
    server = await startServer();
    const { account } = await server.catalog.addUser('alice');
    await server.store.setPasswordHash(account.id, await hashPassword(password));
    ({ key } = await server.catalog.addUser('robot'));
    const file = makeDb(
      server.dataDir,
      'councils.sqlite',
      `create table data (suburb text, title text, cost integer);
      with recursive c(x) as (select 1 union all select x + 1 from c where x < 300)
      insert into data select case x % 3 when 0 then 'Katoomba' when 1 then 'Leura' else 'Blackheath' end,
        case x % 4 when 0 then '=HYPERLINK("http://evil.example")' else 'Café ' || x end, x * 10 from c;`,
    );
    await server.catalog.addScraper('alice/councils', file, { isPrivate: false, description: 'Development applications' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The API's answer to `query` as a file, with a key: what each button must equal. */
  const apiBytes = async (query: string, params: Record<string, string> = {}) =>
    Buffer.from(await (await fetch(dataUrl(server.base, 'alice/councils', 'csv', { key, query, dl: '1', ...params }))).arrayBuffer());

  async function logIn(page: Page): Promise<void> {
    await page.fill('#login-name', 'alice');
    await page.fill('#login-password', password);
  }

  test('signed in: filter from the form, press "download what you see", get every matching row', async (t) => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.base}/login`);
    await logIn(page);
    await Promise.all([page.waitForURL(/\/account$/), page.click('form[action="/login"] button[type="submit"]')]);
    await page.goto(`${server.base}${tablePath('alice', 'councils', 'data')}?_size=20`);
    await page.selectOption('select[name="_filter_column_1"]', 'suburb');
    await page.fill('input[name="_filter_value_1"]', 'Katoomba');
    await page.click('form.table-controls button[type="submit"]');
    await page.click('table.browse th >> text=cost');
    await page.click('table.browse th >> text=cost');
    assert.match(page.url(), /suburb=Katoomba/);
    await screenshot(t, page, 'downloads-table-page');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('.download-buttons a:text-is("CSV")')]);
    assert.equal(download.suggestedFilename(), 'alice-councils-data.csv');
    const bytes = readFileSync((await download.path())!);
    assert.ok(bytes.equals(await apiBytes(`select * from data where suburb = 'Katoomba' order by cost desc, rowid desc`)));
    assert.equal(bytes.toString('utf8').trim().split('\n').length - 1, 100, 'every matching row, not the page of 20');
    assert.deepEqual(errors, []);
  });

  test('anonymous: a press goes to log in, and after logging in the file comes', async (t) => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.base}${tablePath('alice', 'councils', 'data')}?suburb=Leura`);
    await page.click('.download-buttons a:text-is("CSV for Excel")');
    await page.waitForURL(/\/login\?next=/);
    assert.equal(new URL(page.url()).searchParams.get('next'), '/alice/councils/download/data.csv?suburb=Leura&excel=1');
    await screenshot(t, page, 'downloads-login');
    await logIn(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('form[action="/login"] button[type="submit"]')]);
    assert.equal(download.suggestedFilename(), 'alice-councils-data.csv');
    const bytes = readFileSync((await download.path())!);
    assert.ok(bytes.equals(await apiBytes(`select * from data where suburb = 'Leura' order by rowid`, { excel: '1' })));
    assert.ok(bytes.toString('utf8').startsWith('\uFEFFsuburb,title,cost\r\n'));
    assert.deepEqual(errors, []);
  });

  test('the pages with their buttons, at desktop and phone width', async (t) => {
    const { page } = await openPage(browser);
    for (const [width, suffix] of [
      [1200, 'desktop'],
      [390, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      for (const [path, name] of [
        ['/alice/councils', 'scraper'],
        [`${tablePath('alice', 'councils', 'data')}?suburb=Leura&_sort_desc=cost`, 'table'],
      ]) {
        await page.goto(`${server.base}${path}`);
        assert.ok(await page.locator('.download-buttons a').first().isVisible());
        // The buttons wrap: none reaches past the page's width.
        const widest = await page.$$eval('.download-buttons a', (links) => Math.max(...links.map((a) => a.getBoundingClientRect().right)));
        assert.ok(widest <= width, `${name} at ${width}px: a button ends at ${widest}px`);
        await screenshot(t, page, `downloads-${name}-${suffix}`);
      }
    }
  });
});
