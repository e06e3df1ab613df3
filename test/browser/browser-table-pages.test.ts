/**
 * A table page used as a visitor uses it, in real headless Chromium and without any script of ours:
 * sort by a column, add two filters from the form, toggle a facet, page forward three times, open a
 * row, follow the JSON twin. Hostile names and values stay text (no dialog). Screenshots are kept.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tablePath } from '../../src/views/table-paths.js';
import { browserSkip, launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { makeDb } from '../helpers/fixture-db.js';
import { startServer, type TestServer } from '../helpers/server.js';

const breakout = '"><script>alert("column")</script>';

describe('table pages in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let key: string;
  let file: string;

  before(async () => {
    server = await startServer();
    ({ key } = await server.catalog.addUser('alice'));
    file = makeDb(
      server.dataDir,
      'councils.sqlite',
      `
      create table "applications.2026" (suburb text, title text, link text, cost integer, lodged text, "${breakout.replaceAll('"', '""')}" text);
      with recursive c(x) as (select 1 union all select x + 1 from c where x < 200)
      insert into "applications.2026" select case x % 4 when 0 then 'Katoomba' when 1 then 'Leura' when 2 then 'Blackheath' else null end,
        'Application ' || x, case when x % 10 = 0 then 'javascript:alert(1)' else 'https://example.org/da/' || x end, x * 100,
        date('2026-01-01', '+' || (x % 90) || ' days'), '<img src=x onerror=alert(' || x || ')>' from c;`,
    );
    await server.catalog.addScraper('alice/councils', file, { isPrivate: false, description: 'Development applications' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const firstCells = (page: Page, column: number) => page.locator(`table.browse tbody tr td:nth-child(${column + 1})`).allTextContents();
  const sqlite = <T>(sql: string): T[] => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  };

  test('sort, two filters from the form, a facet toggled, three pages forward, a row, the JSON twin', async (t) => {
    const { page, errors, dialogs } = await openPage(browser);
    const start = `${server.base}${tablePath('alice', 'councils', 'applications.2026')}`;
    await page.goto(start);
    await screenshot(t, page, 'table-page-plain');

    // Sort by cost, descending: click its heading twice.
    await page.click('table.browse th >> text=cost');
    await page.click('table.browse th >> text=cost');
    assert.match(page.url(), /_sort_desc=cost/);
    assert.equal((await firstCells(page, 4))[0], '20000');

    // Two filters from the form: suburb = Katoomba, then cost >= 5000.
    await page.selectOption('select[name="_filter_column_1"]', 'suburb');
    await page.fill('input[name="_filter_value_1"]', 'Katoomba');
    await page.click('form.table-controls button[type="submit"]');
    await page.selectOption('select[name="_filter_column_2"]', 'cost');
    await page.selectOption('select[name="_filter_op_2"]', 'gte');
    await page.fill('input[name="_filter_value_2"]', '5000');
    await page.click('form.table-controls button[type="submit"]');
    const params = new URL(page.url()).searchParams;
    assert.equal(params.get('suburb') ?? params.get('suburb__exact'), 'Katoomba');
    assert.equal(params.get('cost__gte'), '5000');
    assert.equal(params.get('_sort_desc'), 'cost');
    const expected = sqlite<{ title: string }>(
      `select title from "applications.2026" where suburb = 'Katoomba' and cost >= 5000 order by cost desc limit 100`,
    );
    assert.deepEqual(
      await firstCells(page, 2),
      expected.map((r) => r.title),
    );
    await screenshot(t, page, 'table-page-filtered');

    // A facet on suburb, from the form (choosing it applies it: the page's script submits the form);
    // then toggle the filter off from the facet's selected value, and on again.
    await Promise.all([page.waitForURL(/_facet=suburb/), page.selectOption('select[name="_facet"]', 'suburb')]);
    await page.click('.facet li.selected a');
    assert.ok(!new URL(page.url()).searchParams.has('suburb'), page.url());
    const counts = sqlite<{ suburb: string | null; n: number }>(
      `select suburb, count(*) as n from "applications.2026" where cost >= 5000 group by 1`,
    );
    for (const { suburb, n } of counts.filter((c) => c.suburb !== null)) {
      assert.equal(await page.locator('.facet li', { hasText: suburb! }).locator('.count').textContent(), String(n));
    }
    await page.click('.facet li a >> text=Leura');
    assert.equal(new URL(page.url()).searchParams.get('suburb'), 'Leura');
    await screenshot(t, page, 'table-page-facet');

    // Three pages forward, 10 rows a page: each page's rows are the next ones.
    await Promise.all([page.waitForURL(/_size=10/), page.selectOption('select[name="_size"]', '10')]);
    const pages: string[][] = [await firstCells(page, 2)];
    for (let i = 0; i < 3; i++) {
      await page.click('nav.pager a[rel="next"]');
      pages.push(await firstCells(page, 2));
    }
    const leura = sqlite<{ title: string }>(
      `select title from "applications.2026" where suburb = 'Leura' and cost >= 5000 order by cost desc limit 40`,
    );
    assert.deepEqual(
      pages.flat(),
      leura.map((r) => r.title),
    );
    await screenshot(t, page, 'table-page-fourth');

    // Open a row, then back to the page and follow its JSON twin (an API call: it needs a key).
    const twin = await page.getAttribute('p.twins a >> text=JSON', 'href');
    await page.click('table.browse tbody tr:first-child td.rowid a');
    assert.match(page.url(), /\/tables\/applications~2E2026\/\d+$/);
    assert.equal(
      await page.locator('.row-values dt', { hasText: 'title' }).locator('xpath=..').locator('dd').textContent(),
      leura[30]!.title,
    );
    await screenshot(t, page, 'row-page');
    const anonymous = await page.goto(`${server.base}${twin}`);
    assert.equal(anonymous?.status(), 401);
    const context = await browser.newContext({ extraHTTPHeaders: { 'x-api-key': key } });
    const program = await context.newPage();
    const answer = await program.goto(`${server.base}${twin}`);
    assert.equal(answer?.status(), 200);
    const body = JSON.parse(await answer!.text()) as { rows: { title: string }[] };
    assert.deepEqual(
      body.rows.map((r) => r.title),
      leura.slice(30, 40).map((r) => r.title),
    );
    await context.close();
    assert.deepEqual(errors, []);
    assert.deepEqual(dialogs, []);
  });

  test('at a phone width, without JavaScript, the page is usable and hostile values stay text', async (t) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, javaScriptEnabled: false });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${server.base}${tablePath('alice', 'councils', 'applications.2026')}?_facet=suburb&_size=20`);
    await screenshot(t, page, 'table-page-phone');
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('a[href^="javascript"]').count(), 0);
    // The form's controls fit the screen's width.
    const box = await page.locator('form.table-controls').boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
    // Without the page's script, the form's Apply button applies a choice.
    await page.selectOption('select[name="_facet"]', 'link');
    await page.click('form.table-controls button[type="submit"]');
    assert.deepEqual(new URL(page.url()).searchParams.getAll('_facet'), ['suburb', 'link']);
    await page.goto(`${server.base}${tablePath('alice', 'councils', 'applications.2026')}/3`);
    await screenshot(t, page, 'row-page-phone');
    assert.deepEqual(dialogs, []);
    await context.close();
  });
});
