/**
 * The pages' download buttons (routes/page-downloads.ts), on real servers with query processes: a
 * signed-in visitor's button gives the API's bytes for the same query, "download what you see" holds
 * every row of the view, not a page, each press is recorded as the visitor's download; an anonymous
 * visitor is sent to log in (or sign up) and comes back to the file; another site's page cannot
 * spend a visitor's downloads; a CSV for Excel of a whole table split over two processes is right.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../src/accounts/passwords.js';
import { pagesKeyLabel } from '../src/http/pages-key.js';
import { waitFor } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';
import { WebClient } from './helpers/web-client.js';

const password = 'a long enough password';

/** `data`: 250 rows (more than a page), text with what a spreadsheet would run; `Odd "name"` to check names in addresses. */
const fixtureSql = `
create table data (id integer primary key, suburb text, title text, n);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 250)
insert into data select x,
  case x % 3 when 0 then 'Katoomba' when 1 then 'Leura' else 'Blackheath' end,
  case x % 5 when 0 then '=1+1' when 1 then '@SUM(A1)' when 2 then '-2+3' when 3 then '+cmd' else 'é "q", ' || x || char(10) || 'two' end,
  case when x % 4 = 0 then null else x * 1.5 end
from c;
create table "Odd ""name""" (v text);
insert into "Odd ""name""" values ('a'), ('=b');
`;

interface Visitor {
  client: WebClient;
  accountId: number;
  key: string;
}

async function visitor(server: TestServer, name: string): Promise<Visitor> {
  const { account, key } = await server.catalog.addUser(name);
  await server.store.setPasswordHash(account.id, await hashPassword(password));
  const client = new WebClient(server.base);
  assert.equal((await client.logIn(name, password)).status, 303);
  return { client, accountId: account.id, key };
}

async function bytesOf(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

/** The account's downloads today, as its account page counts them, once every download answered so far is written. */
async function downloadsOf(server: TestServer, accountId: number): Promise<number> {
  await server.recorder.flush();
  const counts = await server.store.accountDownloads(accountId, 1);
  return counts.reduce((sum, s) => sum + s.total, 0);
}

describe('download buttons on one server', () => {
  let server: TestServer;
  let alice: Visitor;
  before(async () => {
    server = await startServer();
    await server.catalog.addUser('owner');
    await server.catalog.addScraper('owner/places', makeDb(server.dataDir, 'places.sqlite', fixtureSql), {
      isPrivate: false,
      description: '',
    });
    alice = await visitor(server, 'alice');
  });
  after(() => server.close());

  const api = (format: string, params: Record<string, string>) =>
    fetch(dataUrl(server.base, 'owner/places', format, { key: alice.key, dl: '1', ...params }), {
      headers: { 'accept-encoding': 'identity' },
    });

  test('the scraper page shows each table’s buttons and the database’s with its size, and no key', async () => {
    const page = await (await alice.client.get('/owner/places')).text();
    for (const href of [
      '/owner/places/download.sqlite',
      '/owner/places/download/data.csv',
      '/owner/places/download/data.csv?excel=1',
      '/owner/places/download/data.json',
      '/owner/places/download/Odd+~22name~22.csv',
    ]) {
      assert.ok(page.includes(`href="${href}"`), href);
    }
    assert.match(page, /Download the SQLite database \(\d+(\.\d)? KB\)/);
    assert.ok(!page.includes(alice.key) && !/sph_[A-Za-z0-9]/.test(page), 'no key in the page');
  });

  test('each button of a signed-in visitor gives the bytes and file name the API gives for the same query', async () => {
    const cases: [string, string, Record<string, string>][] = [
      ['/owner/places/download/data.csv', 'csv', { query: 'select * from "data"' }],
      ['/owner/places/download/data.csv?excel=1', 'csv', { query: 'select * from "data"', excel: '1' }],
      ['/owner/places/download/data.json', 'json', { query: 'select * from "data"' }],
      ['/owner/places/download/Odd+~22name~22.csv?excel=1', 'csv', { query: 'select * from "Odd ""name"""', excel: '1' }],
      ['/owner/places/download.sqlite', 'sqlite', {}],
    ];
    for (const [path, format, params] of cases) {
      const [button, expected] = await Promise.all([alice.client.get(path), api(format, params)]);
      assert.equal(button.status, 200, path);
      assert.equal(expected.status, 200, path);
      assert.equal(button.headers.get('content-type'), expected.headers.get('content-type'), path);
      assert.equal(button.headers.get('content-disposition'), expected.headers.get('content-disposition'), path);
      assert.ok((await bytesOf(button)).equals(await bytesOf(expected)), path);
      assert.equal(button.headers.get('access-control-allow-origin'), null, `${path}: no CORS for a session's call`);
    }
  });

  test('"download what you see" holds every row of the view in its sort and columns, not one page', async () => {
    const view = '/owner/places/tables/data?suburb=Katoomba&n__notnull=1&_sort_desc=n&_col=title&_col=n&_size=10&_facet=suburb';
    const page = await (await alice.client.get(view)).text();
    const href = /href="(\/owner\/places\/download\/data\.csv\?[^"]*)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(href, 'the table page has a download of its view');
    const asked = new URL(href, server.base).searchParams;
    assert.deepEqual([...asked.keys()].sort(), ['_nocol', '_nocol', '_sort_desc', 'n__notnull', 'suburb'].sort());
    const query = `select "title", "n" from "data" where "suburb" = 'Katoomba' and "n" is not null order by "n" desc, rowid desc`;
    for (const [suffix, extra] of [
      ['', {}],
      ['&excel=1', { excel: '1' }],
    ] as const) {
      const button = await alice.client.get(`${href}${suffix}`);
      assert.equal(button.status, 200);
      assert.ok((await bytesOf(button)).equals(await bytesOf(await api('csv', { query, ...extra }))), `view${suffix}`);
      assert.equal(
        button.headers.get('content-disposition'),
        `attachment; filename="owner-places-data.csv"; filename*=UTF-8''owner-places-data.csv`,
      );
    }
    const json = await alice.client.get(href.replace('data.csv', 'data.json'));
    const rows = (await json.json()) as { title: string; n: number }[];
    assert.deepEqual(rows, await (await api('json', { query })).json());
    assert.ok(rows.length > 10, `every row of the view (${rows.length}), not its page of 10`);
    assert.deepEqual(Object.keys(rows[0]!), ['title', 'n']);
  });

  test('each press is a download of the visitor’s account, with its own key made for the pages', async () => {
    const before = await downloadsOf(server, alice.accountId);
    const res = await alice.client.get('/owner/places/download/data.csv?suburb=Leura');
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(await downloadsOf(server, alice.accountId), before + 1);
    const keys = (await server.store.listKeys(alice.accountId)).filter((k) => k.label === pagesKeyLabel);
    assert.equal(keys.length, 1, 'one key for the pages, made once');
    assert.equal(keys[0]!.readOnly, true);
    assert.ok(keys[0]!.lastUsedAt !== null, 'its downloads are its uses');
    const page = await (await alice.client.get('/account')).text();
    assert.ok(page.includes(pagesKeyLabel), 'listed on the account page');
  });

  test('an anonymous press is sent to log in, and comes back to the same file', async () => {
    const path = '/owner/places/download/data.csv?suburb=Leura&excel=1';
    const anonymous = new WebClient(server.base);
    const press = await anonymous.get(path);
    assert.equal(press.status, 303);
    const login = press.headers.get('location')!;
    assert.equal(login, `/login?next=${encodeURIComponent(path)}`);
    const form = await (await anonymous.get(login)).text();
    assert.ok(form.includes(`name="next" value="${path.replaceAll('&', '&amp;')}"`), 'the form keeps where to go on');
    assert.match(form, /Log in to download the file you asked for/);
    assert.doesNotMatch(
      await (await anonymous.get('/login?next=%2Fowner%2Fplaces')).text(),
      /to download/,
      'said only on the way to a download',
    );
    assert.ok(form.includes(`href="/signup?next=${encodeURIComponent(path).replaceAll('&', '&amp;')}"`), 'and so does its link to sign up');
    const { account } = await server.catalog.addUser('bob');
    await server.store.setPasswordHash(account.id, await hashPassword(password));
    const signedIn = await anonymous.post('/login', { _csrf: await anonymous.token(login), name: 'bob', password, next: path });
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get('location'), path);
    const file = await anonymous.get(path);
    assert.equal(file.status, 200);
    assert.ok(
      (await bytesOf(file)).equals(
        await bytesOf(await api('csv', { query: `select * from "data" where "suburb" = 'Leura' order by rowid`, excel: '1' })),
      ),
    );
  });

  test('signing up from a download comes back to it too', async () => {
    const path = '/owner/places/download/data.json?suburb=Leura';
    const client = new WebClient(server.base);
    const signup = `/signup?next=${encodeURIComponent(path)}`;
    const res = await client.post('/signup', {
      _csrf: await client.token(signup),
      name: 'carol',
      password,
      password2: password,
      next: path,
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), path);
    assert.equal((await client.get(path)).status, 200);
  });

  test('another site’s page cannot spend a visitor’s downloads', async () => {
    const before = await downloadsOf(server, alice.accountId);
    for (const site of ['cross-site', 'same-site']) {
      const res = await fetch(`${server.base}/owner/places/download/data.csv`, {
        headers: { cookie: alice.client.cookieHeader(), 'sec-fetch-site': site },
      });
      assert.equal(res.status, 403, site);
      assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_DOWNLOAD_CROSS_SITE');
      assert.match(((await res.json()) as { error: string }).error, /only when you ask for it on this site/);
    }
    for (const site of ['same-origin', 'none']) {
      const res = await fetch(`${server.base}/owner/places/download.sqlite`, {
        headers: { cookie: alice.client.cookieHeader(), 'sec-fetch-site': site },
      });
      assert.equal(res.status, 200, site);
      await res.arrayBuffer();
    }
    assert.equal(await downloadsOf(server, alice.accountId), before + 2);
  });

  test('a private scraper downloads for its signed-in owner only, as its page shows', async () => {
    const { account } = await server.catalog.addUser('erin');
    await server.store.setPasswordHash(account.id, await hashPassword(password));
    await server.catalog.addScraper('erin/secret', makeDb(server.dataDir, 'secret.sqlite', fixtureSql), {
      isPrivate: true,
      description: '',
    });
    const erin = new WebClient(server.base);
    await erin.logIn('erin', password);
    for (const path of ['/erin/secret/download.sqlite', '/erin/secret/download/data.json']) {
      const own = await erin.get(path);
      assert.equal(own.status, 200, path);
      await own.arrayBuffer();
      const other = await alice.client.get(path);
      assert.equal(other.status, 404, path);
      assert.equal(other.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
    }
  });

  test('a bad address is refused in Siphon’s shape, never a 5xx', async () => {
    const cases: [string, number, string][] = [
      ['/owner/places/download/nope.csv', 404, 'SIPHON_ERR_TABLE_NOT_FOUND'],
      ['/owner/places/download/data.xml', 404, 'SIPHON_ERR_FORMAT_UNKNOWN'],
      ['/owner/places/download/data.csv?excel=2', 400, 'SIPHON_ERR_EXCEL_INVALID'],
      ['/owner/places/download/data.csv?nope__exact=1', 400, 'SIPHON_ERR_VIEW_COLUMN'],
      ['/owner/nothing/download/data.csv', 404, 'SIPHON_ERR_SCRAPER_NOT_FOUND'],
    ];
    for (const [path, status, code] of cases) {
      const res = await alice.client.get(path);
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('siphon-error-code'), code, path);
    }
  });
});

describe('the pages key’s rate limit', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ rateLimitPerMinute: 2 });
    await server.catalog.addUser('owner');
    await server.catalog.addScraper('owner/places', makeDb(server.dataDir, 'places.sqlite', fixtureSql), {
      isPrivate: false,
      description: '',
    });
  });
  after(() => server.close());

  test('is a key’s: past it, a 429 with Retry-After, as on the API', async () => {
    const { client } = await visitor(server, 'dora');
    for (let i = 0; i < 2; i++) assert.equal((await client.get('/owner/places/download.sqlite')).status, 200);
    const refused = await client.get('/owner/places/download/data.csv');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_RATE_LIMITED');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });
});

describe('a CSV for Excel of a whole table split over two processes', () => {
  let split: TestServer;
  before(async () => {
    split = await startServer({ exportRangeRows: 7 });
    await split.catalog.addUser('owner');
    await split.catalog.addScraper('owner/places', makeDb(split.dataDir, 'places.sqlite', fixtureSql), {
      isPrivate: false,
      description: '',
    });
  });
  after(() => split.close());

  test('has one BOM, CRLF line ends only and every formula made inert, as the API’s and in ranges', async () => {
    const alice = await visitor(split, 'alice');
    const res = await alice.client.get('/owner/places/download/data.csv?excel=1');
    assert.equal(res.status, 200);
    const bytes = await bytesOf(res);
    const expected = await fetch(
      dataUrl(split.base, 'owner/places', 'csv', { key: alice.key, query: 'select * from "data"', excel: '1', dl: '1' }),
    );
    assert.ok(bytes.equals(await bytesOf(expected)));
    const text = bytes.toString('utf8');
    assert.equal(text.split('\uFEFF').length, 2, 'one BOM');
    assert.ok(text.startsWith('\uFEFFid,suburb,title,n\r\n'));
    assert.equal(
      text
        .replaceAll('\r\n', '')
        .replace(/"[^"]*"/g, '')
        .includes('\n'),
      false,
      'every line ends CRLF outside quoted values',
    );
    for (const formula of ['=1+1', '@SUM(A1)', '-2+3', '+cmd']) {
      assert.ok(!text.includes(`,${formula},`) && !text.includes(`,"${formula}",`), `${formula} is not a live cell`);
      assert.ok(text.includes(`,"'${formula}",`), `${formula} is made inert`);
    }
    assert.equal(text.split('\r\n').length - 2, 250, 'every row');
    // The split server's log line for the button says it ran in ranges.
    await waitFor(() => split.logs().includes('/download/data.csv?excel=1'), 5000);
    const line = split
      .logs()
      .split('\n')
      .find((l) => l.includes('/download/data.csv?excel=1'))!;
    assert.ok(((JSON.parse(line) as { ranges?: number }).ranges ?? 0) > 1, line);
  });
});
