/**
 * The scraper page in real headless Chromium: its download count and chart follow the API, and a
 * scraper whose data holds markup renders it as text (no dialog, no injected element).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchBrowser, openPage, screenshot, startPlanningServer } from '../helpers/browser.js';
import { waitFor } from '../helpers/cli.js';
import { makeDb } from '../helpers/fixture-db.js';
import { dataUrl, type TestServer } from '../helpers/server.js';

const script = '<script>alert("description")</script>';
const img = '<img src=x onerror=alert("value")>';
const svg = '<svg onload=alert("table")>';
const breakout = '"><script>alert("column")</script>';

describe('scraper page in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let key: string;

  before(async () => {
    ({ server, key } = await startPlanningServer('Planning applications, Blue Mountains'));
    browser = await launchBrowser();
    const sqlText = (s: string) => s.replace(/'/g, "''");
    const ident = (s: string) => s.replace(/"/g, '""');
    const evil = makeDb(
      server.dataDir,
      'evil.sqlite',
      `
      create table "${ident(svg)}" ("${ident(breakout)}" text, "${ident(img)}" text);
      insert into "${ident(svg)}" values ('${sqlText(img)}', '${sqlText(script)}');`,
    );
    await server.catalog.addScraper('alice/evil', evil, { isPrivate: false, description: script });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the download count and the chart go up after API calls, on a page load once they are written', async (t) => {
    const { page, errors } = await openPage(browser);
    const url = `${server.base}/alice/planning`;
    const read = async () => ({
      total: Number(await page.getAttribute('[data-downloads]', 'data-downloads')),
      text: await page.textContent('.download-count'),
      today: Number(await page.getAttribute('rect.bar:last-of-type', 'data-count')),
      height: Number(await page.getAttribute('rect.bar:last-of-type', 'height')),
      downloaders: await page.locator('.downloaders li').allTextContents(),
    });
    await page.goto(url);
    const before = await read();
    assert.equal(before.total, 0);
    assert.match(before.text ?? '', /Downloaded 0 times/);
    assert.equal(before.height, 0);

    // Three calls, one of them failing: every call with a valid key is a download.
    for (const [format, query] of [
      ['json', 'select 1'],
      ['csv', 'select title from data'],
      ['json', 'select * from nope'],
    ]) {
      await fetch(dataUrl(server.base, 'alice/planning', format!, { query: query! }), { headers: { 'x-api-key': key } });
    }
    // Downloads are written in batches, a moment after each call: reload until they are in.
    await waitFor(async () => {
      await page.reload();
      return (await read()).total >= before.total + 3;
    }, 5000);
    const later = await read();
    assert.equal(later.total, before.total + 3);
    assert.match(later.text ?? '', /Downloaded 3 times by/);
    assert.equal(later.today, before.today + 3);
    assert.ok(later.height > 0, "today's bar has grown");
    assert.deepEqual(
      later.downloaders.map((s) => s.replace(/\s+/g, ' ').trim()),
      ['alice 3'],
    );
    assert.match((await page.textContent('figcaption')) ?? '', /3 downloads in the last 90 days/);
    assert.deepEqual(errors, []);
    await screenshot(t, page, 'scraper-page');
  });

  test('markup in a description, a table name, a column name and values shows as text and never runs', async (t) => {
    for (const path of ['/alice/evil', '/', '/alice', '/docs?scraper=alice/evil']) {
      const { page, dialogs, errors } = await openPage(browser);
      // `load` comes after every script of the page has run (deferred and module scripts included), which is what
      // this test needs; 'networkidle' adds nothing here and once timed out on a loaded CI machine.
      await page.goto(`${server.base}${path}`, { waitUntil: 'load' });
      assert.deepEqual(dialogs, [], `${path}: a dialog opened`);
      assert.deepEqual(errors, [], `${path}: a script failed`);
      const injected = await page.evaluate(() => ({
        scripts: [...document.scripts].map((s) => s.getAttribute('src')),
        img: document.querySelectorAll('img').length,
        svgOnload: document.querySelectorAll('svg[onload]').length,
        handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      }));
      assert.ok(
        injected.scripts.every((src) => src === '/assets/views/client/query-builder.js'),
        `${path}: ${injected.scripts.join(', ')}`,
      );
      assert.deepEqual(
        { img: injected.img, svgOnload: injected.svgOnload, handlers: injected.handlers },
        { img: 0, svgOnload: 0, handlers: 0 },
      );
      if (path === '/alice/evil') {
        assert.equal(await page.textContent('.description'), script);
        assert.equal(await page.textContent('#table-1'), svg);
        assert.deepEqual(await page.locator('table.data th').allTextContents(), [breakout, img]);
        assert.deepEqual(await page.locator('table.data td').allTextContents(), [img, script]);
        // The builder got the same names through its data attribute, and quotes them in SQL.
        const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
        assert.equal(await page.inputValue('#qb-sql'), `select * from ${q(svg)} limit 10`);
        await page.selectOption('#qb-format', 'atom');
        assert.equal(
          await page.inputValue('#qb-sql'),
          `select ${q(breakout)} as title, ${q(img)} as content, '' as link, '' as date from ${q(svg)} limit 10`,
        );
        assert.deepEqual(dialogs, []);
        await screenshot(t, page, 'scraper-page-hostile-data');
      }
    }
  });

  test('the docs page renders, with its builder working and no script errors', async (t) => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.base}/docs`);
    assert.equal(await page.textContent('h1'), 'API documentation');
    assert.ok((await page.locator('#qb-examples details').count()) >= 6, 'the examples were rendered');
    assert.equal(await page.isVisible('#qb-key'), true, 'the key field shows once JavaScript runs');
    assert.deepEqual(errors, []);
    await screenshot(t, page, 'docs-page');
  });
});
