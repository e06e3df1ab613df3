import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { after, before, type TestContext } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { makeDb } from './fixture-db.js';
import { repoRoot } from './paths.js';
import { startServer, type TestServer } from './server.js';

export const chromiumPath = '/usr/bin/chromium';
const required = process.env.SIPHON_REQUIRE_BROWSER === '1';

/**
 * A skip reason for browser tests when Chromium is not installed; false when they must run. With
 * SIPHON_REQUIRE_BROWSER=1 (CI) they always run, so a missing browser fails them instead.
 */
export const browserSkip: string | false =
  existsSync(chromiumPath) || required
    ? false
    : `Chromium is not installed at ${chromiumPath} (apt-get install chromium); set SIPHON_REQUIRE_BROWSER=1 to make this a failure`;

/**
 * Debian's Chromium, headless, driven by playwright-core (`npx playwright install` cannot download
 * browsers here). Background networking is off: this machine's closed network refuses it.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`SIPHON_REQUIRE_BROWSER=1 but there is no Chromium at ${chromiumPath}: apt-get install chromium`);
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  /** Messages of alert/confirm/prompt dialogs the page opened (each is dismissed). */
  dialogs: string[];
  /** Uncaught errors thrown by the page's scripts. */
  errors: string[];
  /** What the page logged with console.log/error, in order. */
  console: string[];
}

/** A new page in a fresh context, recording dialogs, script errors and console output. */
export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const watched: WatchedPage = { page, dialogs: [], errors: [], console: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (err) => watched.errors.push(err.message));
  page.on('console', (message) => watched.console.push(message.text()));
  return watched;
}

/** Saves a full-page screenshot under test-output/screenshots/ and names it in the test's output. */
export async function screenshot(t: TestContext, page: Page, name: string): Promise<string> {
  const dir = path.join(repoRoot, 'test-output', 'screenshots');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  t.diagnostic(`screenshot: ${file}`);
  return file;
}

export interface OtherOrigin {
  /** http://127.0.0.1:<another port>: a different origin from the server under test. */
  base: string;
  /** Serves this HTML at `path` from now on. */
  serve(path: string, html: string): void;
  close(): Promise<void>;
}

/** A second loopback server on another port, serving the pages a third-party site would. */
export async function startOtherOrigin(): Promise<OtherOrigin> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const html = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    serve: (p, html) => {
      pages.set(p, html);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Loads `src` with a <script> tag (with `attributes`, such as `referrerpolicy="no-referrer"`) in a
 * page of `origin`, and returns what the page's callback `got` was called with.
 */
export async function jsonpCalls(browser: Browser, origin: OtherOrigin, src: string, attributes = ''): Promise<unknown[]> {
  const path = `/jsonp-${Math.random().toString(36).slice(2)}`;
  origin.serve(
    path,
    `<!doctype html><script>window.calls = []; function got(arg) { window.calls.push(arg); }</script>
<script src="${src.replace(/&/g, '&amp;')}" ${attributes}></script>`,
  );
  const { page, errors } = await openPage(browser);
  await page.goto(`${origin.base}${path}`);
  assert.deepEqual(errors, []);
  return page.evaluate(() => (window as unknown as { calls: unknown[] }).calls);
}

/** Planning-style rows with every kind of value, for the builder and example tests. */
export const planningSql = `
  create table data (title text, content text, link text, date text, n integer, r real);
  insert into data values
    ('Two storey dwelling', '12 Lurline Street', 'https://example.org/da/1', '2026-11-01', 1, 0.5),
    ('Deck & carport', '3 Govett Street', 'https://example.org/da/2', '2026-11-02', 2, 1.0),
    ('Pool <fenced>', '"Quoted", with comma', 'https://example.org/da/3', '2026-11-03', 3, null),
    ('Café sign', 'Line one
line two', 'https://example.org/da/4', '2026-11-04', 9007199254740993, -2.25);
  create table "other table" ("x y" text, z integer);
  insert into "other table" values ('a', 1), ('b', 2);`;

/** A server with the account alice (`key`) and her public scraper alice/planning, made of `planningSql` (`file`). */
export async function startPlanningServer(description = ''): Promise<{ server: TestServer; key: string; file: string }> {
  const server = await startServer();
  const { key } = await server.catalog.addUser('alice');
  const file = makeDb(server.dataDir, 'planning.sqlite', planningSql);
  await server.catalog.addScraper('alice/planning', file, { isPrivate: false, description });
  return { server, key, file };
}

/** What the browser tests of pages and clients on other origins run against. */
export interface BrowserScene {
  server: TestServer;
  /** alice's key (she owns alice/planning). */
  key: string;
  /** Loopback servers on ports of their own: origins other than the server's and each other's. */
  sites: OtherOrigin[];
  browser: Browser;
}

/**
 * Registers hooks that start, before the tests of the current suite, the planning server (see
 * startPlanningServer), `siteCount` other origins each serving a plain page at `/`, and Chromium;
 * and stop them all after. The scene returned is filled in when the tests run.
 */
export function browserScene(siteCount = 1): BrowserScene {
  const scene = { sites: [] as OtherOrigin[] } as BrowserScene;
  before(async () => {
    Object.assign(scene, await startPlanningServer());
    for (let i = 0; i < siteCount; i++) {
      const site = await startOtherOrigin();
      site.serve('/', '<!doctype html><title>Another site</title><p>Another site</p>');
      scene.sites.push(site);
    }
    scene.browser = await launchBrowser();
  });
  after(async () => {
    await scene.browser?.close();
    for (const site of scene.sites) await site.close();
    await scene.server?.close();
  });
  return scene;
}
