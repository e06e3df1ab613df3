/**
 * The owner's forms for saved queries, over HTTP: "Save this query" in the scraper page's builder
 * (its owner's only), the edit page and its delete form. Each POST needs the page's CSRF token; a
 * visitor signed out is sent to sign in; anyone but the owner is told nothing exists; every refusal
 * is the form again with its status and code, and nothing is stored. A real server (the scraper
 * page runs its tables' previews), real sign-ins, a real data file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../src/accounts/passwords.js';
import { maxSavedQueries, maxTitleChars } from '../src/scrapers/saved-queries.js';
import { makeDb } from './helpers/fixture-db.js';
import { startServer, type TestServer } from './helpers/server.js';
import { WebClient } from './helpers/web-client.js';

const password = 'a long enough password';
const maxQueryChars = 300;
const byTown = 'select id, town from t\r\nwhere town = :town and n >= :min\r\norder by id';

let server: TestServer;
let aliceKey: string;
/** alice owns alice/towns (public) and alice/hidden (private); bob owns nothing. */
let signedInAlice: WebClient;
let signedInBob: WebClient;

before(async () => {
  server = await startServer({ maxQueryChars });
  const hash = await hashPassword(password);
  for (const name of ['alice', 'bob']) {
    const { account, key } = await server.catalog.addUser(name);
    await server.store.setPasswordHash(account.id, hash);
    if (name === 'alice') aliceKey = key;
  }
  const db = makeDb(
    server.dataDir,
    'towns.sqlite',
    `create table t (id integer primary key, town text, n integer);
     insert into t values (1, 'Leura', 1), (2, 'Leura', 5), (3, 'Katoomba', 9);`,
  );
  await server.catalog.addScraper('alice/towns', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/hidden', makeDb(server.dataDir, 'hidden.sqlite', 'create table h (a);'), {
    isPrivate: true,
    description: '',
  });
  signedInAlice = new WebClient(server.base);
  assert.equal((await signedInAlice.logIn('alice', password)).status, 303);
  signedInBob = new WebClient(server.base);
  assert.equal((await signedInBob.logIn('bob', password)).status, 303);
});
after(() => server.close());

const saved = () => server.catalog.listQueries('alice/towns');
const names = async () => (await saved()).map((q) => q.name);

/** Posts the builder's form with a token of the client's (the account page's; a visitor signed out has the log-in page's). */
async function saveFromBuilder(
  client: WebClient,
  fields: Record<string, string>,
  path = '/alice/towns',
  tokenPage = '/account',
): Promise<Response> {
  return client.post(`${path}/queries`, { _csrf: await client.token(tokenPage), ...fields });
}

describe('"Save this query" in the builder', () => {
  test("is shown to the scraper's owner only, carrying the SQL the page was rendered with", async () => {
    const page = await (
      await signedInAlice.get(`/alice/towns?${new URLSearchParams({ sql: 'select * from t where town = :town' })}`)
    ).text();
    assert.match(page, /<form method="post" action="\/alice\/towns\/queries" class="save-query">/);
    assert.match(page, /<input type="hidden" name="sql" value="select \* from t where town = :town">/);
    assert.match(page, /<summary>Save this query<\/summary>/);
    for (const visitor of [signedInBob, new WebClient(server.base)]) {
      const other = await (await visitor.get('/alice/towns')).text();
      assert.match(other, /id="qb-sql"/, 'the builder is there');
      assert.doesNotMatch(other, /save-query|Save this query/, 'its save form is not');
    }
  });

  test('saves the SQL as it is, :named parameters and all, and sends the owner to its page', async () => {
    const res = await saveFromBuilder(signedInAlice, {
      name: 'by-town',
      title: 'By town',
      description: 'Rows of a town\r\nfrom a count on',
      sql: byTown,
      private: '1',
    });
    assert.equal(res.status, 303, await res.text());
    assert.equal(res.headers.get('location'), '/alice/towns/queries/by-town');
    const [query] = await saved();
    assert.deepEqual(
      { ...query, scraperId: undefined, updatedAt: undefined },
      {
        scraperId: undefined,
        updatedAt: undefined,
        name: 'by-town',
        title: 'By town',
        description: 'Rows of a town\nfrom a count on',
        sql: byTown.replaceAll('\r\n', '\n'),
        isPrivate: true,
      },
    );
    // What was saved runs on the data API with its parameters by name.
    const rows = await fetch(`${server.base}/alice/towns/queries/by-town.json?key=${aliceKey}&town=Leura&min=2`);
    assert.deepEqual(await rows.json(), [{ id: 2, town: 'Leura' }]);
  });

  test('a name already taken is refused (409) with the form kept, and the saved query is left as it was', async () => {
    const before = await saved();
    const res = await saveFromBuilder(signedInAlice, { name: 'by-town', title: 'Another', sql: 'select 1 as one' });
    assert.equal(res.status, 409);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SAVED_QUERY_EXISTS');
    const page = await res.text();
    assert.match(page, /<p class="error" id="save-error" role="alert">alice\/towns already has a saved query named by-town/);
    assert.match(page, /value="Another"/, 'what was sent is shown again');
    assert.match(page, />select 1 as one<\/textarea>/, 'with its SQL to correct');
    assert.deepEqual(await saved(), before);
  });

  test('every refusal of what may be saved is shown at the form (400), and nothing is stored', async () => {
    const before = await saved();
    const cases: [Record<string, string>, string][] = [
      [{ name: 'By Town', sql: 'select 1' }, 'SIPHON_ERR_SAVED_QUERY_NAME_INVALID'],
      [{ name: '', sql: 'select 1' }, 'SIPHON_ERR_SAVED_QUERY_NAME_INVALID'],
      [{ name: 'long-title', title: 'x'.repeat(maxTitleChars + 1), sql: 'select 1' }, 'SIPHON_ERR_SAVED_QUERY_TEXT_INVALID'],
      [{ name: 'no-sql', sql: '' }, 'SIPHON_ERR_QUERY_MISSING'],
      [{ name: 'writes', sql: 'delete from t' }, 'SIPHON_ERR_QUERY_NOT_READ'],
      [{ name: 'too-long', sql: `select '${'x'.repeat(maxQueryChars)}'` }, 'SIPHON_ERR_QUERY_TOO_LONG'],
      [{ name: 'reserved', sql: 'select * from t where town = :key' }, 'SIPHON_ERR_SAVED_QUERY_PARAM_RESERVED'],
      [{ name: 'reserved-2', sql: 'select * from t limit :page_size' }, 'SIPHON_ERR_SAVED_QUERY_PARAM_RESERVED'],
    ];
    for (const [fields, code] of cases) {
      const res = await saveFromBuilder(signedInAlice, fields);
      assert.equal(res.status, 400, code);
      assert.equal(res.headers.get('siphon-error-code'), code);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await res.text(), /id="save-error" role="alert"/, code);
    }
    assert.deepEqual(await saved(), before);
  });

  test("another account is told the scraper does not exist; a visitor signed out is sent to sign in; a form without this browser's token is refused", async () => {
    const fields = { name: 'sneaky', sql: 'select 1' };
    const bob = await saveFromBuilder(signedInBob, fields);
    assert.equal(bob.status, 404);
    assert.equal(bob.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
    const hidden = await saveFromBuilder(signedInBob, fields, '/alice/hidden');
    assert.equal(hidden.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
    assert.doesNotMatch(await hidden.text(), /href="\/alice\/hidden"/, 'no link to a scraper bob may not see');
    const anonymous = await saveFromBuilder(new WebClient(server.base), fields, '/alice/towns', '/login');
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), `/login?next=${encodeURIComponent('/alice/towns#api')}`);
    const noToken = await signedInAlice.post('/alice/towns/queries', fields);
    assert.equal(noToken.status, 403);
    assert.equal(noToken.headers.get('siphon-error-code'), 'SIPHON_ERR_CSRF');
    assert.deepEqual(await names(), ['by-town']);
  });
});

describe('the edit page', () => {
  const edit = '/alice/towns/queries/by-town/edit';

  test('shows the saved query to its owner, and saves a change under the same name', async () => {
    const page = await (await signedInAlice.get(edit)).text();
    assert.match(page, /<h1>Edit the saved query <a href="\/alice\/towns\/queries\/by-town">by-town<\/a><\/h1>/);
    assert.match(page, /name="title" value="By town"/);
    assert.match(page, /name="private" value="1" checked/);
    assert.match(page, /<textarea id="query-sql" name="sql"[^>]*>select id, town from t\nwhere town = :town/);
    const res = await signedInAlice.post(edit, {
      _csrf: await signedInAlice.token(edit),
      name: 'renamed',
      title: 'Leura and others',
      description: '',
      sql: 'select id from t where town = :town',
    });
    assert.equal(res.status, 303, await res.text());
    assert.equal(res.headers.get('location'), '/alice/towns/queries/by-town');
    const [query] = await saved();
    assert.equal(query!.name, 'by-town', 'the name stays');
    assert.equal(query!.title, 'Leura and others');
    assert.equal(query!.sql, 'select id from t where town = :town');
    assert.equal(query!.isPrivate, false, 'an unticked box makes it public');
    // The query's page links to this one for its owner only.
    const link = '<a href="/alice/towns/queries/by-town/edit">Edit this query</a>';
    assert.ok((await (await signedInAlice.get('/alice/towns/queries/by-town')).text()).includes(link));
    for (const other of [signedInBob, new WebClient(server.base)]) {
      const page = await other.get('/alice/towns/queries/by-town');
      assert.equal(page.status, 200);
      assert.doesNotMatch(await page.text(), /\/edit"|Edit this query/);
    }
  });

  test('refuses what may not be saved with the form kept (400), and leaves the query as it was', async () => {
    const before = await saved();
    const res = await signedInAlice.post(edit, { _csrf: await signedInAlice.token(edit), title: 'T', sql: 'select :callback' });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SAVED_QUERY_PARAM_RESERVED');
    const page = await res.text();
    assert.match(page, /id="save-error" role="alert">A saved query&#39;s parameters are given by name/);
    assert.match(page, />select :callback<\/textarea>/);
    assert.deepEqual(await saved(), before);
  });

  test('is a 404 to anyone but the owner, as a private query is; sends a visitor signed out to sign in; needs the token', async () => {
    const before = await saved();
    const token = await signedInBob.token('/account');
    for (const answer of [
      await signedInBob.get(edit),
      await signedInBob.post(edit, { _csrf: token, title: 'mine now', sql: 'select 1' }),
      await signedInBob.post('/alice/towns/queries/by-town/delete', { _csrf: token, confirm: '1' }),
      await signedInAlice.get('/alice/towns/queries/nothing-here/edit'),
      // A name no query can have, a NUL in it (which PostgreSQL refuses in a parameter): not found, never a 5xx.
      await signedInAlice.get('/alice/towns/queries/a%00b/edit'),
      await signedInAlice.post('/alice/towns/queries/a%00b/edit', { _csrf: await signedInAlice.token(edit), title: 'x', sql: 'select 1' }),
      await signedInAlice.post('/alice/towns/queries/a%00b/delete', { _csrf: await signedInAlice.token(edit), confirm: '1' }),
    ]) {
      assert.equal(answer.status, 404);
      assert.equal(answer.headers.get('siphon-error-code'), 'SIPHON_ERR_SAVED_QUERY_NOT_FOUND');
      assert.doesNotMatch(await answer.text(), /select id from t/, 'its SQL is not shown');
    }
    const anonymous = await new WebClient(server.base).get(edit);
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), `/login?next=${encodeURIComponent(edit)}`);
    for (const path of [edit, '/alice/towns/queries/by-town/delete']) {
      const noToken = await signedInAlice.post(path, { title: 'x', sql: 'select 1', confirm: '1' });
      assert.equal(noToken.status, 403, path);
      assert.equal(noToken.headers.get('siphon-error-code'), 'SIPHON_ERR_CSRF');
    }
    assert.deepEqual(await saved(), before);
  });

  test('deletes the query once its box is ticked, and sends the owner back to the scraper', async () => {
    const unticked = await signedInAlice.post('/alice/towns/queries/by-town/delete', { _csrf: await signedInAlice.token(edit) });
    assert.equal(unticked.status, 400);
    assert.equal(unticked.headers.get('siphon-error-code'), 'SIPHON_ERR_FORM_INVALID');
    assert.match(await unticked.text(), /id="delete-error" role="alert">Tick/);
    assert.deepEqual(await names(), ['by-town']);
    const res = await signedInAlice.post('/alice/towns/queries/by-town/delete', { _csrf: await signedInAlice.token(edit), confirm: '1' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/alice/towns');
    assert.deepEqual(await names(), []);
    const gone = await fetch(`${server.base}/alice/towns/queries/by-town.json?key=${aliceKey}&town=Leura`);
    assert.equal(gone.status, 404);
    assert.equal((await signedInAlice.get(edit)).status, 404);
  });
});

test('a scraper with the most saved queries it may have is refused one more from the builder (409), shown at the form', async () => {
  for (let i = 0; i < maxSavedQueries; i++) {
    await server.catalog.saveQuery(
      'alice/towns',
      { name: `q${i}`, title: '', description: '', sql: 'select 1', isPrivate: false },
      maxQueryChars,
    );
  }
  const res = await saveFromBuilder(signedInAlice, { name: 'one-more', sql: 'select 1' });
  assert.equal(res.status, 409);
  assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SAVED_QUERIES_TOO_MANY');
  assert.match(await res.text(), /id="save-error" role="alert">A scraper can have at most 100 saved queries/);
  assert.equal((await saved()).length, maxSavedQueries);
});
