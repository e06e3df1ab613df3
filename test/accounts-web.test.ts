/**
 * Accounts on the web, over HTTP: forms refused without their CSRF token (nothing changed), wrong
 * passwords throttled per account and per address, the session cookie's flags, sessions that end
 * and are removed, a session never reading data, sign-ups checked, bounded per address and closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../src/accounts/passwords.js';
import { sessionIdHash } from '../src/accounts/session-store.js';
import { startApp, type ListeningApp } from './helpers/app.js';
import { WebClient } from './helpers/web-client.js';

const password = 'a long enough password';

/** Signs up `name` through the form; the client is then signed in. */
async function signUp(client: WebClient, name: string, fields: Record<string, string> = {}): Promise<Response> {
  return client.post('/signup', { _csrf: await client.token('/signup'), name, password, password2: password, ...fields });
}

const sessionLine = (client: WebClient) => client.setCookies.filter((c) => c.startsWith('siphon_session=')).at(-1) ?? '';

/**
 * `password`'s hash, made once: every account made below shares it (and its salt), as ten hashes at
 * scrypt's real cost would take ~2.5 s of CPU to set up what the sign-in tests then check.
 */
let passwordHash: Promise<string> | undefined;

async function accountWithPassword(server: ListeningApp, name: string): Promise<void> {
  const { account } = await server.catalog.addUser(name);
  await server.store.setPasswordHash(account.id, await (passwordHash ??= hashPassword(password)));
}

describe('an open server on http', () => {
  let server: ListeningApp;
  before(async () => {
    server = await startApp({ loginFailures: 3, loginFailuresPerAddress: 1000 });
  });
  after(() => server.close());

  test('sign-up checks its fields, and answers each refusal as a page with its status and code', async () => {
    const client = new WebClient(server.base);
    const cases: [Record<string, string>, number, string][] = [
      [{ name: 'no spaces allowed' }, 400, 'SIPHON_ERR_NAME_INVALID'],
      [{ name: 'docs' }, 400, 'SIPHON_ERR_NAME_INVALID'],
      // The site's own pages: an account of that name would have its page hidden behind them.
      ...['account', 'Login', 'signup', 'logout'].map((name): [Record<string, string>, number, string] => [
        { name },
        400,
        'SIPHON_ERR_NAME_INVALID',
      ]),
      [{ name: 'carol', password: 'short', password2: 'short' }, 400, 'SIPHON_ERR_PASSWORD_INVALID'],
      [{ name: 'carol', password2: 'something else entirely' }, 400, 'SIPHON_ERR_PASSWORDS_DIFFER'],
      [{ name: 'carol', email: 'not an address' }, 400, 'SIPHON_ERR_EMAIL_INVALID'],
    ];
    for (const [fields, status, code] of cases) {
      const res = await client.post('/signup', {
        _csrf: await client.token('/signup'),
        name: '',
        password,
        password2: password,
        ...fields,
      });
      assert.equal(res.status, status, code);
      assert.equal(res.headers.get('siphon-error-code'), code);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(!(await res.text()).includes(password), 'the password is not sent back');
    }
    assert.equal((await server.store.listAccounts()).length, 0, 'no account was made');
    assert.equal((await signUp(client, 'carol', { email: 'carol@example.org' })).status, 303);
    const again = await signUp(new WebClient(server.base), 'CAROL');
    assert.equal(again.status, 409);
    assert.equal(again.headers.get('siphon-error-code'), 'SIPHON_ERR_ACCOUNT_EXISTS');
  });

  test('a form field holding U+0000 is refused (400) and nothing of it is stored, on every engine', async () => {
    const nina = new WebClient(server.base);
    const refused = await signUp(nina, 'nina', { email: 'nina\u0000@example.org' });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_FORM_INVALID');
    assert.equal(await server.store.findAccount('nina'), undefined, 'no account was made');
    assert.equal((await signUp(nina, 'nina')).status, 303);
    const label = await nina.post('/account/keys', { _csrf: await nina.token('/account'), label: 'maps\u0000' });
    assert.equal(label.status, 400);
    assert.deepEqual(await server.store.listKeys((await server.store.findAccount('nina'))!.id), [], 'no key was made');
  });

  test("a form POST without its token, or with another browser's, is refused (403) and changes nothing", async () => {
    const dave = new WebClient(server.base);
    assert.equal((await signUp(dave, 'dave')).status, 303);
    const other = new WebClient(server.base);
    const othersToken = await other.token('/login');
    const account = (await server.store.findAccount('dave'))!;
    for (const token of [undefined, '', othersToken]) {
      const fields: Record<string, string> = token === undefined ? {} : { _csrf: token };
      const forms: [string, Record<string, string>][] = [
        ['/account/keys', { label: 'x' }],
        ['/account/password', { current: password, password: 'another good password', password2: 'another good password' }],
        ['/logout', {}],
      ];
      for (const [path, body] of forms) {
        const res = await dave.post(path, { ...fields, ...body });
        assert.equal(res.status, 403, `${path} with ${JSON.stringify(token)}`);
        assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_CSRF');
        assert.match(await res.text(), /Reload the page and send it again/);
      }
      const signup = await (token === othersToken ? dave : new WebClient(server.base)).post('/signup', {
        ...fields,
        name: 'mallory',
        password,
        password2: password,
      });
      assert.equal(signup.status, 403);
    }
    assert.deepEqual(await server.store.listKeys(account.id), [], 'no key was made');
    assert.equal((await dave.get('/account')).status, 200, 'still signed in: not logged out');
    assert.equal((await new WebClient(server.base).logIn('dave', password)).status, 303, 'the password did not change');
    assert.equal(await server.store.findAccount('mallory'), undefined);
    // The query builder's key, asked for by a script without the token, as JSON.
    const res = await fetch(`${server.base}/account/builder-key`, { method: 'POST', headers: { cookie: dave.cookieHeader() } });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { error: (await import('../src/errors.js')).errors.csrfInvalid().message });
  });

  test('wrong passwords for one account are throttled (429), even the right one then; other accounts are not', async () => {
    await accountWithPassword(server, 'erin');
    await accountWithPassword(server, 'frank');
    const client = new WebClient(server.base);
    for (let i = 0; i < server.config.loginFailures; i++) {
      const res = await client.logIn('erin', 'wrong password!');
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGN_IN_FAILED');
    }
    const throttled = await client.logIn('erin', password);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGN_IN_THROTTLED');
    const retryAfter = Number(throttled.headers.get('retry-after'));
    assert.ok(retryAfter > 0 && retryAfter <= server.config.loginWindowMs / 1000, `Retry-After ${retryAfter}`);
    assert.match(await throttled.text(), /Too many wrong passwords/);
    assert.equal(client.cookies.has('siphon_session'), false, 'not signed in');
    assert.equal((await client.logIn('frank', password)).status, 303, 'another account signs in');
    // An unknown account is refused as a wrong password is, and counted the same way.
    const unknown = await new WebClient(server.base).logIn('nobody-at-all', password);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGN_IN_FAILED');
  });

  test('the session cookie is HttpOnly and SameSite=Lax, not Secure on http; it ends with its lifetime', async () => {
    await accountWithPassword(server, 'grace');
    const client = new WebClient(server.base);
    const start = Date.now();
    assert.equal((await client.logIn('grace', password)).status, 303);
    const line = sessionLine(client);
    assert.match(line, /; HttpOnly/);
    assert.match(line, /; SameSite=Lax/);
    assert.doesNotMatch(line, /; Secure/i);
    const expires = Date.parse(/Expires=([^;]+)/.exec(line)![1]!);
    assert.ok(Math.abs(expires - (start + server.config.sessionLifetimeMs)) < 60_000, 'expires with the session lifetime');
    assert.match(
      client.setCookies.find((c) => c.startsWith('_csrf='))!,
      /; HttpOnly; SameSite=Lax/,
    );
  });

  test('a session cookie alone reads no data and publishes nothing: only keys do', async () => {
    await accountWithPassword(server, 'heidi');
    const client = new WebClient(server.base);
    await client.logIn('heidi', password);
    const db = (await import('./helpers/fixture-db.js')).makeDb(
      server.dataDir,
      'h.sqlite',
      'create table t (x); insert into t values (1);',
    );
    await server.catalog.addScraper('heidi/own', db, { isPrivate: true, description: '' });
    const cookie = client.cookieHeader();
    for (const [method, path] of [
      ['GET', '/heidi/own/data.json?query=select+1'],
      ['POST', '/heidi/own/data.json'],
      ['PUT', '/heidi/own/data.sqlite'],
    ]) {
      const res = await fetch(`${server.base}${path}`, {
        method,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: method === 'GET' ? undefined : 'query=select+1',
      });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_KEY_MISSING');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    }
  });

  test("changing the password logs out the account's other sessions, and needs the current one", async () => {
    await accountWithPassword(server, 'ivan');
    const [here, there] = [new WebClient(server.base), new WebClient(server.base)];
    await here.logIn('ivan', password);
    await there.logIn('ivan', password);
    const token = await here.token('/account');
    const wrong = await here.post('/account/password', {
      _csrf: token,
      current: 'not the password',
      password: 'a brand new password',
      password2: 'a brand new password',
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGN_IN_FAILED');
    const res = await here.post('/account/password', {
      _csrf: token,
      current: password,
      password: 'a brand new password',
      password2: 'a brand new password',
    });
    assert.equal(res.status, 200);
    assert.equal((await here.get('/account')).status, 200, 'this session stays');
    const elsewhere = await there.get('/account');
    assert.equal(elsewhere.status, 303);
    assert.equal(elsewhere.headers.get('location'), '/login?next=/account');
    assert.equal((await new WebClient(server.base).logIn('ivan', 'a brand new password')).status, 303);
  });

  test('a sign-in goes on to a path of this site only', async () => {
    await accountWithPassword(server, 'judy');
    for (const [next, to] of [
      ['/docs', '/docs'],
      ['//evil.example/x', '/account'],
      ['https://evil.example', '/account'],
      ['/\\evil.example', '/account'],
    ]) {
      const client = new WebClient(server.base);
      const res = await client.post('/login', { _csrf: await client.token('/login'), name: 'judy', password, next: next! });
      assert.equal(res.headers.get('location'), to, next);
    }
  });
});

describe('a server with an https public URL and sign-ups closed', () => {
  let server: ListeningApp;
  before(async () => {
    server = await startApp({
      publicUrl: 'https://data.example.org',
      signup: 'closed',
      loginFailuresPerAddress: 4,
      sessionLifetimeMs: 1500,
    });
  });
  after(() => server.close());

  test('sign-ups are refused: the page says keys come from the operator, and nothing is made', async () => {
    const client = new WebClient(server.base);
    const page = await client.get('/signup');
    assert.equal(page.status, 403);
    assert.equal(page.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGNUP_CLOSED');
    assert.match(await page.text(), /accounts and keys come from its operator/);
    const res = await client.post('/signup', { _csrf: await client.token('/login'), name: 'kate', password, password2: password });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGNUP_CLOSED');
    assert.equal(await server.store.findAccount('kate'), undefined);
  });

  test('the cookies are Secure; the session ends with its lifetime and is then removed', async () => {
    await accountWithPassword(server, 'leo');
    // A session left alone past its end, made first so that it ends first: only the sweep removes it.
    const idle = new WebClient(server.base);
    assert.equal((await idle.logIn('leo', password)).status, 303);
    const idleId = decodeURIComponent(idle.cookies.get('siphon_session')!).split('.')[0]!;
    const client = new WebClient(server.base);
    assert.equal((await client.logIn('leo', password)).status, 303);
    for (const flag of [/; HttpOnly/, /; SameSite=Lax/, /; Secure/]) assert.match(sessionLine(client), flag);
    for (const line of client.setCookies) assert.match(line, /; Secure/i, line);
    assert.equal((await client.get('/account')).status, 200);
    const id = decodeURIComponent(client.cookies.get('siphon_session')!).split('.')[0]!;
    const deadline = Date.now() + 10_000;
    while ((await client.get('/account')).status === 200) {
      assert.ok(Date.now() < deadline, 'the session ended');
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal((await client.get('/account')).headers.get('location'), '/login?next=/account');
    // The session used as it ended may be deleted then (the plugin does, when the store gave it a
    // moment before its end); the one left alone is kept until the sweep, which removes both.
    assert.notEqual(await server.store.findSession(sessionIdHash(idleId), new Date(0).toISOString()), undefined, 'kept until the sweep');
    assert.ok((await server.store.removeExpiredSessions(new Date().toISOString())) >= 1);
    for (const ended of [idleId, id]) {
      assert.equal(await server.store.findSession(sessionIdHash(ended), new Date(0).toISOString()), undefined, 'removed');
    }
  });

  test('wrong passwords from one address are throttled whatever the account', async () => {
    await accountWithPassword(server, 'mia');
    const client = new WebClient(server.base);
    for (let i = 0; i < server.config.loginFailuresPerAddress; i++) {
      assert.equal((await client.logIn(`guess-${i}`, 'wrong password!')).status, 401);
    }
    const res = await client.logIn('mia', password);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGN_IN_THROTTLED');
  });
});

describe('sign-ups from one address, behind a trusted proxy', () => {
  let server: ListeningApp;
  before(async () => {
    server = await startApp({ trustProxy: 'loopback', signupsPerAddress: 3 });
  });
  after(() => server.close());

  /** A browser behind the proxy, at `address`. */
  const from = (address: string) => new WebClient(server.base, { 'x-forwarded-for': address });

  test('beyond --signups-per-address in the login window, a sign-up is refused (429) in its form and makes no account; another address still signs up', async () => {
    const flooder = '203.0.113.7';
    // Refused before the password hash, so not counted: one address's typos cost nothing.
    for (let i = 0; i < server.config.signupsPerAddress + 1; i++) {
      assert.equal((await signUp(from(flooder), `typo-${i}`, { password2: 'not the same password' })).status, 400);
    }
    // A taken name costs a hash all the same, so it counts.
    assert.equal((await signUp(from(flooder), 'flood-0')).status, 303);
    assert.equal((await signUp(from(flooder), 'FLOOD-0')).status, 409);
    assert.equal((await signUp(from(flooder), 'flood-1')).status, 303);
    const names = async () => (await server.store.listAccounts()).map((a) => a.name).sort();
    assert.deepEqual(await names(), ['flood-0', 'flood-1']);

    const refused = await signUp(from(flooder), 'flood-2', { email: 'flood@example.org' });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_SIGNUP_THROTTLED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter > 0 && retryAfter <= server.config.loginWindowMs / 1000, `Retry-After ${retryAfter}`);
    const page = await refused.text();
    assert.match(page, /Too many sign-ups from this address\. Try again in \d+ s\./);
    assert.match(page, /<form[^>]*action="\/signup"/, 'shown in the sign-up form');
    assert.match(page, /value="flood-2"/, 'which keeps the name');
    assert.ok(!page.includes(password), 'the password is not sent back');
    assert.deepEqual(await names(), ['flood-0', 'flood-1'], 'no account was made');

    assert.equal((await signUp(from('203.0.113.8'), 'neighbour')).status, 303, 'another address signs up');
    assert.deepEqual(await names(), ['flood-0', 'flood-1', 'neighbour']);
  });
});

describe("an owner's forms", () => {
  let server: ListeningApp;
  let alice: WebClient;
  const publishLimit = 64 * 1024;
  before(async () => {
    server = await startApp({ maxPublishBytes: publishLimit });
    await accountWithPassword(server, 'alice');
    const db = (await import('./helpers/fixture-db.js')).makeDb(
      server.dataDir,
      'a.sqlite',
      'create table t (x); insert into t values (1);',
    );
    await server.catalog.addScraper('alice/things', db, { isPrivate: true, description: 'Things' });
    alice = new WebClient(server.base);
    await alice.logIn('alice', password);
  });
  after(() => server.close());

  /** Posts the publish form as a browser does: the token first, then the file. */
  async function publish(client: WebClient, token: string | undefined, file?: Buffer): Promise<Response> {
    const form = new FormData();
    if (token !== undefined) form.append('_csrf', token);
    if (file) form.append('db', new Blob([new Uint8Array(file)]), 'data.sqlite');
    return fetch(`${server.base}/alice/things/publish`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      headers: { cookie: client.cookieHeader(), accept: 'text/html' },
    });
  }
  const version = async () => (await server.store.findScraper('alice', 'things'))!.data.version;

  test('a publish without the token, with no file, or over the publish limit is refused and changes nothing', async () => {
    const token = await alice.token('/alice/things');
    const noToken = await publish(alice, undefined, Buffer.from('x'));
    assert.equal(noToken.status, 403);
    assert.equal(noToken.headers.get('siphon-error-code'), 'SIPHON_ERR_CSRF');
    const noFile = await publish(alice, token);
    assert.equal(noFile.status, 400);
    assert.equal(noFile.headers.get('siphon-error-code'), 'SIPHON_ERR_FORM_INVALID');
    const tooLarge = await publish(alice, token, Buffer.alloc(publishLimit + 1, 1));
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.headers.get('siphon-error-code'), 'SIPHON_ERR_DATA_TOO_LARGE');
    assert.match(await tooLarge.text(), new RegExp(`publish limit of ${publishLimit} bytes`));
    assert.equal(await version(), 1);
  });

  test("the keep form sets how many versions the scraper keeps, within the operator's bounds; empty fields go back to the default", async () => {
    const page = async () => (await alice.get('/alice/things')).text();
    assert.match(await page(), /Now: the last 5 \(the default\)/);
    const kept = await alice.post('/alice/things/keep', { _csrf: await alice.token('/alice/things'), versions: '3', days: '30' });
    assert.equal(kept.status, 303);
    assert.deepEqual((await server.store.findScraper('alice', 'things'))!.keep, { versions: 3, days: 30 });
    assert.match(await page(), /Now: the last 3, none older than 30 days\./);
    for (const [versions, days] of [
      ['21', ''],
      ['0', ''],
      ['x', ''],
      ['', '3651'],
    ]) {
      const refused = await alice.post('/alice/things/keep', {
        _csrf: await alice.token('/alice/things'),
        versions: versions!,
        days: days!,
      });
      assert.equal(refused.status, 400, `${versions} ${days}`);
      assert.equal(refused.headers.get('siphon-error-code'), 'SIPHON_ERR_KEEP_INVALID');
    }
    const back = await alice.post('/alice/things/keep', { _csrf: await alice.token('/alice/things'), versions: '', days: '' });
    assert.equal(back.status, 303);
    assert.deepEqual((await server.store.findScraper('alice', 'things'))!.keep, { versions: null, days: null });
    const noToken = await alice.post('/alice/things/keep', { versions: '2' });
    assert.equal(noToken.status, 403);
  });

  test("another account's forms for the scraper answer 404, as for one that does not exist; a description is bounded", async () => {
    await accountWithPassword(server, 'bob');
    const bob = new WebClient(server.base);
    await bob.logIn('bob', password);
    const token = await bob.token('/account');
    const settings = await bob.post('/alice/things/settings', { _csrf: token, description: 'mine now', visibility: 'public' });
    assert.equal(settings.status, 404);
    assert.equal(settings.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
    const upload = await publish(bob, token, Buffer.from('x'));
    assert.equal(upload.status, 404);
    const long = await alice.post('/alice/things/settings', { _csrf: await alice.token('/alice/things'), description: 'x'.repeat(1001) });
    assert.equal(long.status, 400);
    assert.equal(long.headers.get('siphon-error-code'), 'SIPHON_ERR_FORM_INVALID');
    const scraper = (await server.store.findScraper('alice', 'things'))!;
    assert.deepEqual([scraper.description, scraper.isPrivate, scraper.data.version], ['Things', true, 1]);
  });
});
