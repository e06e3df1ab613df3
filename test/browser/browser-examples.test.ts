/**
 * Every example the query builder shows is run as it is shown: taken from the page in Chromium
 * (after pasting a key, so they are the ones a visitor copies) and run with curl, python3, ruby and
 * Rscript (each skipped with a reason when not installed), and in a browser page on another origin
 * for the JavaScript ones. Each must print what the API returns, or the API's error.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser, openPage, startOtherOrigin, startPlanningServer, type OtherOrigin } from '../helpers/browser.js';
import { sha256File, tempDir } from '../helpers/fixture-db.js';
import { runToEnd as run } from '../helpers/processes.js';
import { dataUrl, type TestServer } from '../helpers/server.js';

const sql = 'select title, n, r from "data" where n < 3 order by n';

const works = (command: string, ...args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const skipUnless = (ok: boolean, why: string): string | false => (ok ? false : why);
const hasCurl = works('curl', '--version');
const hasPython = works('python3', '--version');
const hasRequests = hasPython && works('python3', '-c', 'import requests');
const hasRuby = works('ruby', '-rjson', '-rnet/http', '-e', '1');
const hasR = works('Rscript', '-e', 'library(jsonlite)');

describe('examples shown by the query builder', { skip: browserSkip }, () => {
  let server: TestServer;
  let other: OtherOrigin;
  let browser: Browser;
  let page: Page;
  let key: string;

  /** The examples for a format, as the page shows them with `apiKey` pasted. */
  async function examplesFor(format: string, apiKey = key): Promise<Record<string, string>> {
    await page.selectOption('#qb-format', format);
    await page.fill('#qb-sql', sql);
    await page.fill('#qb-key', apiKey);
    return page
      .locator('code[data-example]')
      .evaluateAll((codes) => Object.fromEntries(codes.map((c) => [(c as HTMLElement).dataset.example!, c.textContent ?? ''])));
  }

  /** What the API itself sends for the format. */
  async function apiBody(format: string): Promise<string> {
    const res = await fetch(dataUrl(server.base, 'alice/planning', format, format === 'sqlite' ? {} : { query: sql }), {
      headers: { 'x-api-key': key },
    });
    assert.equal(res.status, 200);
    return res.text();
  }

  before(async () => {
    ({ server, key } = await startPlanningServer());
    other = await startOtherOrigin();
    browser = await launchBrowser();
    ({ page } = await openPage(browser));
    await page.goto(`${server.base}/alice/planning`);
  });
  after(async () => {
    await browser?.close();
    await other?.close();
    await server?.close();
  });

  const databaseSha = async () => sha256File((await server.store.findScraper('alice', 'planning'))!.data.file);

  test(
    'curl prints json and csv as the API sends them, saves the database, and fails on a bad key',
    { skip: skipUnless(hasCurl, 'curl is not installed') },
    async () => {
      for (const format of ['json', 'csv']) {
        const ran = await run('sh', ['-c', (await examplesFor(format)).curl!]);
        assert.equal(ran.code, 0, ran.stderr);
        assert.equal(ran.stdout, await apiBody(format), format);
      }
      const dir = tempDir();
      const saved = await run('sh', ['-c', (await examplesFor('sqlite')).curl!], { cwd: dir });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(sha256File(path.join(dir, 'alice-planning.sqlite')), await databaseSha());
      const refused = await run('sh', ['-c', (await examplesFor('json', 'sph_wrong')).curl!]);
      assert.equal(refused.code, 22, 'curl --fail-with-body exits 22 on an HTTP error');
      assert.deepEqual(JSON.parse(refused.stdout), { error: 'API key is not valid. Check it, or create a new one.' });
    },
  );

  /** Python's own printing of the API's json, to compare with the example's output. */
  const pythonRepr = async (json: string) =>
    (await run('python3', ['-c', 'import json, sys; print(json.load(sys.stdin))'], { input: json })).stdout;

  for (const [id, skip] of [
    ['python', skipUnless(hasRequests, 'Python requests is not installed (pip install requests); the standard-library example still runs')],
    ['python-stdlib', skipUnless(hasPython, 'python3 is not installed')],
  ] as const) {
    test(`the ${id} example prints the rows, the csv, saves the database, and exits with the API's error`, { skip }, async () => {
      const json = await run('python3', ['-c', (await examplesFor('json'))[id]!]);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(json.stdout, await pythonRepr(await apiBody('json')));
      const csv = await run('python3', ['-c', (await examplesFor('csv'))[id]!]);
      assert.equal(csv.stdout, await apiBody('csv'), 'csv, LF line ends kept');
      const dir = tempDir();
      const saved = await run('python3', ['-c', (await examplesFor('sqlite'))[id]!], { cwd: dir });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(sha256File(path.join(dir, 'alice-planning.sqlite')), await databaseSha());
      const refused = await run('python3', ['-c', (await examplesFor('json', 'sph_wrong'))[id]!]);
      assert.equal(refused.code, 1);
      assert.equal(refused.stderr, '401: API key is not valid. Check it, or create a new one.\n');
    });
  }

  test(
    "the Ruby example prints the rows and the csv, saves the database, and exits with the API's error",
    { skip: skipUnless(hasRuby, 'ruby is not installed (apt-get install ruby)') },
    async () => {
      const ran = await run('ruby', ['-e', (await examplesFor('json')).ruby!]);
      assert.equal(ran.code, 0, ran.stderr);
      const expected = await run('ruby', ['-rjson', '-e', 'p JSON.parse(STDIN.read)'], { input: await apiBody('json') });
      assert.equal(ran.stdout, expected.stdout);
      const csv = await run('ruby', ['-e', (await examplesFor('csv')).ruby!]);
      assert.equal(csv.stdout, await apiBody('csv'));
      const dir = tempDir();
      const saved = await run('ruby', ['-e', (await examplesFor('sqlite')).ruby!], { cwd: dir });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(sha256File(path.join(dir, 'alice-planning.sqlite')), await databaseSha());
      const refused = await run('ruby', ['-e', (await examplesFor('json', 'sph_wrong')).ruby!]);
      assert.equal(refused.code, 1);
      assert.equal(refused.stderr, '401: API key is not valid. Check it, or create a new one.\n');
    },
  );

  test(
    'the R example reads the rows and the csv, and saves the database',
    { skip: skipUnless(hasR, 'Rscript with jsonlite is not installed (apt-get install r-base-core r-cran-jsonlite)') },
    async () => {
      const ran = await run('Rscript', ['-e', (await examplesFor('json')).r!]);
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /Two storey dwelling/);
      assert.match(ran.stdout, /Deck & carport/);
      const csv = await run('Rscript', ['-e', (await examplesFor('csv')).r!]);
      assert.equal(csv.code, 0, csv.stderr);
      assert.match(csv.stdout, /title +n +r\n1 +Two storey dwelling +1 +0\.5\n2 +Deck & carport +2 +1\.0\n/);
      const dir = tempDir();
      const saved = await run('Rscript', ['-e', (await examplesFor('sqlite')).r!], { cwd: dir });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(sha256File(path.join(dir, 'alice-planning.sqlite')), await databaseSha());
    },
  );

  test('the JavaScript fetch example gets the rows from a page on another origin, and in Node.js', async () => {
    const code = (await examplesFor('json')).javascript!;
    const expected = JSON.parse(await apiBody('json')) as unknown;
    const { page: thirdParty, errors } = await openPage(browser);
    other.serve('/fetch', '<!doctype html><title>fetch example</title>');
    await thirdParty.goto(`${other.base}/fetch`);
    const logged = await thirdParty.evaluate(async (source) => {
      const calls: unknown[][] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => {
        calls.push(args);
      };
      try {
        const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (body: string) => () => Promise<void>;
        await new AsyncFunction(source)();
      } finally {
        console.log = log;
      }
      return calls;
    }, code);
    assert.deepEqual(logged, [[expected]]);
    assert.deepEqual(errors, []);
    const file = path.join(tempDir(), 'example.mjs');
    writeFileSync(file, code);
    const node = await run(process.execPath, [file]);
    assert.equal(node.code, 0, node.stderr);
    const reference = await run(
      process.execPath,
      ['-e', 'let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => console.log(JSON.parse(s)));'],
      { input: await apiBody('json') },
    );
    assert.equal(node.stdout, reference.stdout);
  });

  test('the JSONP example, as a page on another origin, logs the rows', async () => {
    await page.fill('#qb-callback', 'shown');
    const code = (await examplesFor('json')).jsonp!;
    await page.fill('#qb-callback', '');
    assert.match(code, /callback=shown/);
    other.serve('/jsonp-example', `<!doctype html><title>JSONP example</title>\n${code}`);
    const { page: thirdParty, errors } = await openPage(browser);
    const message = thirdParty.waitForEvent('console');
    await thirdParty.goto(`${other.base}/jsonp-example`);
    const logged = (await (await message).args()[0]?.jsonValue()) as unknown;
    assert.deepEqual(logged, JSON.parse(await apiBody('json')));
    assert.deepEqual(errors, []);
  });

  test('the docs page shows the same examples as the scraper page', async () => {
    const fromScraperPage = await examplesFor('csv');
    await page.goto(`${server.base}/docs?scraper=alice/planning`);
    const fromDocs = await examplesFor('csv');
    assert.deepEqual(fromDocs, fromScraperPage);
    await page.goto(`${server.base}/alice/planning`);
  });
});
