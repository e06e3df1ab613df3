/**
 * Accounts on the web in real headless Chromium: sign up, create a key, run a query with it from a
 * scraper page's builder, see the download on /account and on the scraper page, revoke the key and
 * see it refused; the builder's one-click key; an owner's private scraper, its settings and a publish
 * from the web. Nothing secret reaches the log or a page's source but the new key, once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/accounts/passwords.js';
import { browserSkip, launchBrowser, openPage, screenshot, startPlanningServer, type WatchedPage } from '../helpers/browser.js';
import { makeDb } from '../helpers/fixture-db.js';
import type { TestServer } from '../helpers/server.js';

const password = 'correct horse battery';

describe('accounts in Chromium', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let aliceKey: string;
  /** Page sources seen, by what they were; a key may appear only in the one that made it. */
  const sources: { what: string; html: string }[] = [];
  const keysMade: string[] = [];

  const source = async (what: string) => {
    sources.push({ what, html: await page.content() });
  };
  const submit = async (selector: string) => {
    const [response] = await Promise.all([page.waitForEvent('framenavigated').then(() => page.waitForLoadState()), page.click(selector)]);
    return response;
  };

  before(async () => {
    ({ server, key: aliceKey } = await startPlanningServer('Planning'));
    const alice = (await server.store.findAccount('alice'))!;
    await server.store.setPasswordHash(alice.id, await hashPassword(password));
    await server.catalog.addScraper(
      'alice/secret',
      makeDb(server.dataDir, 'secret.sqlite', "create table data (x text); insert into data values ('hidden');"),
      { isPrivate: true, description: 'Not for everyone' },
    );
    browser = await launchBrowser();
    watched = await openPage(browser);
    page = watched.page;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('sign up → create a key → run a query from the builder → the download shows → revoke → refused', async (t) => {
    await page.goto(`${server.base}/signup`);
    await screenshot(t, page, 'signup');
    await page.fill('#signup-name', 'bob');
    await page.fill('#signup-password', password);
    await page.fill('#signup-password2', password);
    await submit('form[action="/signup"] button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/account');
    assert.equal(await page.textContent('h1'), 'bob');
    assert.ok(await page.isVisible('form.logout button'), 'a Log out button');

    await page.fill('#key-label', 'my laptop');
    await submit('form.create-key button[type="submit"]');
    const key = (await page.textContent('#new-key'))!;
    keysMade.push(key);
    assert.match(key, /^sph_[A-Za-z0-9_-]{32}$/);
    assert.ok(await page.isVisible('#copy-key'), 'the Copy button shows');
    await screenshot(t, page, 'account');
    assert.match((await page.textContent('table.keys tbody')) ?? '', new RegExp(`${key.slice(0, 10)}…[\\s\\S]*my laptop[\\s\\S]*never`));

    await page.goto(`${server.base}/alice/planning`);
    await page.fill('#qb-sql', 'select title from "data" where n = 2');
    await page.fill('#qb-key', key);
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result td:text("Deck & carport")');
    await server.recorder.flush();

    await page.goto(`${server.base}/account`);
    await source('/account after the key was made');
    assert.equal(await page.getAttribute('.account-downloads[data-scraper="alice/planning"] [data-downloads]', 'data-downloads'), '1');
    assert.equal(await page.getAttribute('.account-downloads svg', 'data-total'), '1');
    assert.doesNotMatch((await page.textContent('table.keys tbody')) ?? '', /never/, 'the key shows as used');
    await page.goto(`${server.base}/alice/planning`);
    assert.match((await page.textContent('.downloaders')) ?? '', /bob\s+1/);

    await page.goto(`${server.base}/account`);
    await submit('table.keys button:text("Revoke")');
    assert.match((await page.textContent('.notice')) ?? '', /revoked/);
    assert.match((await page.textContent('table.keys tbody')) ?? '', /revoked/);
    const res = await fetch(`${server.base}/alice/planning/data.json?query=select+1`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_KEY_REVOKED');
    assert.deepEqual(watched.errors, []);
  });

  test("a signed-in visitor fills a new key of theirs into the builder with one click; the page's HTML held none", async () => {
    const response = await page.goto(`${server.base}/alice/planning`);
    const html = await response!.text();
    sources.push({ what: 'scraper page before the click', html });
    assert.doesNotMatch(html, /sph_[A-Za-z0-9_-]{32}/);
    assert.equal(await page.inputValue('#qb-key'), '');
    await page.click('#qb-new-key');
    await page.waitForFunction(() => (document.querySelector('#qb-key') as HTMLInputElement).value.startsWith('sph_'));
    const key = await page.inputValue('#qb-key');
    keysMade.push(key);
    assert.ok((await page.textContent('code[data-example="curl"]'))!.includes(key));
    await page.click('#qb-run');
    await page.waitForSelector('#qb-result table');
    const bob = (await server.store.findAccount('bob'))!;
    const listed = (await server.store.listKeys(bob.id)).at(-1)!;
    assert.equal(listed.readOnly, true);
    assert.equal(listed.label, 'query builder (alice/planning)');
    assert.deepEqual(watched.errors, []);
  });

  test('an owner sees their private scraper, changes it and publishes to it from the web; others get 404', async (t) => {
    const privatePage = await fetch(`${server.base}/alice/secret`);
    const unknownPage = await fetch(`${server.base}/alice/nothing-here`);
    assert.equal(privatePage.status, 404);
    assert.equal(unknownPage.status, 404);
    assert.equal((await privatePage.text()).replace('secret', 'nothing-here'), await unknownPage.text(), 'told apart from nothing');

    // bob is signed in: still 404, and the API refuses his key as for an unknown scraper.
    assert.equal((await page.goto(`${server.base}/alice/secret`))!.status(), 404);
    const bobKey = keysMade[1]!;
    const asBob = await fetch(`${server.base}/alice/secret/data.json?query=select+*+from+data`, { headers: { 'x-api-key': bobKey } });
    const unknownAsBob = await fetch(`${server.base}/alice/nothing-here/data.json?query=select+*+from+data`, {
      headers: { 'x-api-key': bobKey },
    });
    assert.equal(asBob.status, 404);
    assert.equal((await asBob.text()).replace('secret', 'nothing-here'), await unknownAsBob.text());

    await submit('form.logout button');
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(await page.isVisible('form.logout'), false, 'logged out');
    await page.goto(`${server.base}/login`);
    await page.fill('#login-name', 'alice');
    await page.fill('#login-password', password);
    await submit('form[action="/login"] button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/account');
    assert.match((await page.textContent('.scrapers')) ?? '', /secret\s+private/);

    await page.goto(`${server.base}/alice`);
    assert.match((await page.textContent('.scrapers')) ?? '', /secret private/);
    await page.goto(`${server.base}/alice/secret`);
    assert.ok(await page.isVisible('.owner-tools'));
    await screenshot(t, page, 'private-scraper-as-owner');
    const asAlice = await fetch(`${server.base}/alice/secret/data.json?query=select+*+from+data`, { headers: { 'x-api-key': aliceKey } });
    assert.equal(asAlice.status, 200);
    assert.deepEqual(await asAlice.json(), [{ x: 'hidden' }]);

    await page.fill('#scraper-description', 'Now for everyone');
    await page.check('#visibility-public');
    await submit('form.scraper-settings button[type="submit"]');
    let scraper = (await server.store.findScraper('alice', 'secret'))!;
    assert.equal(scraper.isPrivate, false);
    assert.equal(scraper.description, 'Now for everyone');
    assert.equal((await fetch(`${server.base}/alice/secret`)).status, 200);

    const next = makeDb(server.dataDir, 'secret-2.sqlite', "create table data (x text); insert into data values ('v2'), ('v2 again');");
    await page.setInputFiles('#publish-file', next);
    await submit('form.scraper-publish button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/alice/secret');
    scraper = (await server.store.findScraper('alice', 'secret'))!;
    assert.equal(scraper.data.version, 2);
    assert.deepEqual(
      scraper.data.tables.map((table) => table.rows),
      [2],
    );

    await page.setInputFiles('#publish-file', {
      name: 'not.sqlite',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('not a database at all'),
    });
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/publish')),
      page.click('form.scraper-publish button[type="submit"]'),
    ]);
    assert.equal(refused.status(), 400);
    assert.equal(refused.headers()['siphon-error-code'], 'SIPHON_ERR_DATA_INVALID');
    assert.equal((await server.store.findScraper('alice', 'secret'))!.data.version, 2, 'nothing changed');
    assert.deepEqual(watched.errors, []);
  });

  test('no key or password is in the log, nor in a page but the one that made the key', async () => {
    const log = server.logs();
    for (const secret of [...keysMade, aliceKey, password]) assert.ok(!log.includes(secret), 'a secret was logged');
    for (const { what, html } of sources) {
      for (const secret of [...keysMade, password]) assert.ok(!html.includes(secret), `${what} holds a secret`);
    }
    assert.match(log, /"account signed up"/);
  });
});
