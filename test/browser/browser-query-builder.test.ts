/**
 * The query builder in real headless Chromium: the URL it shows, fetched, returns what its SQL asks
 * for in every format; Run with a pasted key shows the rows or the API's error; the key is sent
 * only in the X-API-Key header of API calls; the whole database can be downloaded.
 */
import Database from 'better-sqlite3';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseLossless } from 'lossless-json';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser, openPage, startPlanningServer, type WatchedPage } from '../helpers/browser.js';
import { sha256File } from '../helpers/fixture-db.js';
import type { TestServer } from '../helpers/server.js';

const sql = 'select title, n, r from "data" where n >= 2 order by n';

describe('query builder in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let key: string;
  let source: string;
  let watched: WatchedPage;
  let page: Page;

  /** What SQLite itself returns for the query, read from the source file. */
  function expectedRows(query: string): Record<string, string>[] {
    const db = new Database(source, { readonly: true });
    try {
      return db.prepare(query).all() as Record<string, string>[];
    } finally {
      db.close();
    }
  }

  const apiGet = (url: string, withKey = key) => fetch(url, { headers: { 'x-api-key': withKey } });
  const shownUrl = async () => (await page.textContent('#qb-url'))!;

  before(async () => {
    ({ server, key, file: source } = await startPlanningServer('Planning'));
    browser = await launchBrowser();
    watched = await openPage(browser);
    page = watched.page;
    await page.goto(`${server.base}/alice/planning`);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the shown URL follows the form as you type, URL-encoded', async () => {
    assert.equal(await page.inputValue('#qb-sql'), 'select * from "data" limit 10');
    assert.equal(await shownUrl(), `${server.base}/alice/planning/data.json?query=select+*+from+%22data%22+limit+10`);
    await page.selectOption('#qb-table', 'other table');
    assert.equal(await page.inputValue('#qb-sql'), 'select * from "other table" limit 10');
    await page.fill('#qb-sql', sql);
    assert.equal(await shownUrl(), `${server.base}/alice/planning/data.json?${new URLSearchParams({ query: sql })}`);
    await page.fill('#qb-callback', 'my.cb');
    assert.equal(await shownUrl(), `${server.base}/alice/planning/data.json?${new URLSearchParams({ query: sql, callback: 'my.cb' })}`);
    await page.fill('#qb-callback', '');
    assert.deepEqual(watched.errors, []);
  });

  test('for json, csv and ndjson the URL, fetched, returns the rows the SQL asks for', async () => {
    // The fixture's rows with n >= 2, as the API writes them: exact integers, REALs as float literals.
    const expected = [
      { title: 'Deck & carport', n: '2', r: '1.0' },
      { title: 'Pool <fenced>', n: '3', r: null },
      { title: 'Café sign', n: '9007199254740993', r: '-2.25' },
    ];
    assert.deepEqual(
      expectedRows(sql).map((r) => r.title),
      expected.map((r) => r.title),
    );
    // Numbers kept as their text, so nothing is rounded on the way.
    const parseJson = (text: string) => parseLossless(text, undefined, (n) => n) as Record<string, unknown>[];
    for (const format of ['json', 'csv', 'ndjson']) {
      await page.selectOption('#qb-format', format);
      await page.fill('#qb-sql', sql);
      const url = await shownUrl();
      assert.equal(url, `${server.base}/alice/planning/data.${format}?${new URLSearchParams({ query: sql })}`);
      const res = await apiGet(url);
      assert.equal(res.status, 200, format);
      const body = await res.text();
      const rows =
        format === 'csv'
          ? (parseCsv(body, { columns: true }) as Record<string, string>[]).map((r) => ({ ...r, r: r.r === '' ? null : r.r }))
          : format === 'json'
            ? parseJson(body)
            : body
                .trimEnd()
                .split('\n')
                .map((l) => parseJson(l));
      assert.deepEqual(rows, expected, format);
    }
  });

  test('for json with a callback the URL returns JSONP calling it', async () => {
    await page.selectOption('#qb-format', 'json');
    await page.fill('#qb-sql', 'select title from "data" where n = 1');
    await page.fill('#qb-callback', 'showRows');
    const body = await (await apiGet(await shownUrl())).text();
    assert.equal(body, '/**/showRows([\n{"title":"Two storey dwelling"}\n]);');
    await page.fill('#qb-callback', '');
  });

  test('for atom the mapping writes the SQL, and the URL returns a feed of those columns', async () => {
    await page.selectOption('#qb-table', 'data');
    await page.selectOption('#qb-format', 'atom');
    assert.equal(await page.isVisible('fieldset.atom-mapping'), true);
    assert.equal(
      await page.inputValue('#qb-sql'),
      'select "title" as title, "content" as content, "link" as link, "date" as date from "data" limit 10',
    );
    await page.fill('#qb-atom-title', `"title" || ' #' || "n"`);
    const written = await page.inputValue('#qb-sql');
    assert.equal(
      written,
      `select "title" || ' #' || "n" as title, "content" as content, "link" as link, "date" as date from "data" limit 10`,
    );
    const res = await apiGet(await shownUrl());
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/atom\+xml/);
    const feed = await res.text();
    const titles = [...feed.matchAll(/<entry>[\s\S]*?<title>([^<]*)<\/title>/g)].map((m) => m[1]);
    assert.deepEqual(
      titles,
      expectedRows("select title || ' #' || n as t from data limit 10").map((r) =>
        r.t!.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
      ),
    );
    assert.match(feed, /<link rel="alternate" href="https:\/\/example.org\/da\/1"\/>/);
  });

  test('for sqlite the URL (no query) returns the whole database file', async () => {
    await page.selectOption('#qb-format', 'sqlite');
    const url = await shownUrl();
    assert.equal(url, `${server.base}/alice/planning/data.sqlite`);
    assert.equal(await page.isVisible('[data-for-kind="file"]'), true, 'the page says the query is not needed');
    const bytes = Buffer.from(await (await apiGet(url)).arrayBuffer());
    const scraper = (await server.store.findScraper('alice', 'planning'))!;
    assert.equal(createHash('sha256').update(bytes).digest('hex'), sha256File(scraper.data.file));
  });

  test('Run with a pasted key shows the rows; the key goes only to the API, in the X-API-Key header', async () => {
    const requests: { url: string; apiKey?: string }[] = [];
    page.on('request', (r) => requests.push({ url: r.url(), apiKey: r.headers()['x-api-key'] }));
    const pageUrl = page.url();
    await page.selectOption('#qb-format', 'json');
    await page.fill('#qb-sql', sql);
    await page.fill('#qb-key', key);
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result table');
    const cells = await page
      .locator('#qb-result tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.deepEqual(
      cells.map((r) => r[0]),
      expectedRows(sql).map((r) => r.title),
    );
    assert.match((await page.textContent('#qb-result')) ?? '', /3 rows/);
    // The examples now carry the key for copying; the page's own URL never does.
    assert.ok((await page.textContent('code[data-example="curl"]'))!.includes(`X-API-Key: ${key}`));
    assert.equal(page.url(), pageUrl);
    const withKey = requests.filter((r) => r.apiKey !== undefined);
    assert.equal(withKey.length, 1);
    assert.equal(withKey[0]!.apiKey, key);
    assert.equal(new URL(withKey[0]!.url).pathname, '/alice/planning/data.json');
    assert.ok(
      requests.every((r) => !r.url.includes(key)),
      'no URL holds the key',
    );
    assert.deepEqual(watched.errors, []);
  });

  test('Run with ndjson and csv shows rows and text', async () => {
    await page.selectOption('#qb-format', 'ndjson');
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result table');
    assert.deepEqual(
      await page.locator('#qb-result tbody tr td:first-child').allTextContents(),
      expectedRows(sql).map((r) => r.title),
    );
    await page.selectOption('#qb-format', 'csv');
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result pre');
    assert.match((await page.textContent('#qb-result pre')) ?? '', /^title,n,r\n/);
  });

  test("Run with a wrong key or bad SQL shows the API's error", async () => {
    await page.selectOption('#qb-format', 'json');
    await page.fill('#qb-key', 'sph_not-a-real-key');
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result [role="alert"]');
    assert.equal(await page.textContent('#qb-result [role="alert"]'), '401: API key is not valid. Check it, or create a new one.');
    await page.fill('#qb-key', key);
    await page.fill('#qb-sql', 'select * from "nope"');
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result [role="alert"]:text("no such table")');
    assert.equal(await page.textContent('#qb-result [role="alert"]'), '400: no such table: nope');
    await page.fill('#qb-key', '');
    await page.click('#qb-run');
    assert.equal(await page.textContent('#qb-result [role="alert"]'), 'Paste your API key first.');
  });

  test('Enter in a field runs the query instead of submitting the form (the page and its URL stay)', async () => {
    const pageUrl = page.url();
    await page.selectOption('#qb-format', 'json');
    await page.fill('#qb-sql', 'select title from "data" where n = 2');
    await page.fill('#qb-key', key);
    await page.press('#qb-key', 'Enter');
    await page.waitForSelector('#qb-result td:text("Deck & carport")');
    assert.equal(page.url(), pageUrl);
    assert.equal(await page.inputValue('#qb-key'), key, 'the page was not reloaded');
  });

  test('the download button saves the whole database, fetched with the key in a header', async () => {
    await page.fill('#qb-key', key);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#qb-download')]);
    assert.equal(download.suggestedFilename(), 'alice-planning.sqlite');
    const file = await download.path();
    const scraper = (await server.store.findScraper('alice', 'planning'))!;
    assert.equal(createHash('sha256').update(readFileSync(file)).digest('hex'), sha256File(scraper.data.file));
    assert.deepEqual(watched.errors, []);
  });
});
