/**
 * Where a sign-in sends the browser on (`next`), through the real log-in form on a real server:
 * a path of this site only, read as a browser reads it, always a 3xx whose Location Node can send,
 * whatever the value; the form keeps `next` only in that cleaned form.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../src/accounts/passwords.js';
import { maxSitePathChars } from '../src/http/site-path.js';
import { startApp, type ListeningApp } from './helpers/app.js';
import { WebClient } from './helpers/web-client.js';

const password = 'a long enough password';

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
/** An HTML attribute's text as the browser reads it. */
const unescape = (text: string | undefined) => text?.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity]!);

/** Values that name another site, another scheme or nothing a browser could follow here: each goes to /account. */
const elsewhere = [
  '/\t/evil.example/',
  '/\t/evil.example',
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/\r\n/evil.example',
  ' //evil.example',
  '/./\\evil.example',
  '/.//evil.example',
  '/x/..//evil.example',
  'https://evil.example',
  'https:evil.example',
  'HTTPS://evil.example/',
  'http://evil.example@127.0.0.1/',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'mailto:someone@evil.example',
  'http://[::1',
  '\u0000//evil.example',
  `/${'a'.repeat(maxSitePathChars)}`,
  `/?q=${'名'.repeat(1000)}`,
];

/** Values that are paths of this site, and the Location each becomes: percent-encoded, with what a browser drops dropped. */
const here: [string, string][] = [
  ['/docs', '/docs'],
  ['/alice/plants?query=select+1#table', '/alice/plants?query=select+1#table'],
  ['/?q=名前', '/?q=%E5%90%8D%E5%89%8D'],
  ['/名前', '/%E5%90%8D%E5%89%8D'],
  ['/do\r\ncs', '/docs'],
  ['/do\tcs', '/docs'],
  ['/a\vb', '/a%0Bb'],
  ['/a\u3000b', '/a%E3%80%80b'],
  ['/a\u0000b', '/a%00b'],
  ["/it's", "/it's"],
  ['/%09/evil.example/', '/%09/evil.example/'],
  ['/%zz%', '/%zz%'],
  ['/a b"<>`', '/a%20b%22%3C%3E%60'],
  ['/#\u2028x', '/#%E2%80%A8x'],
  ['/\ud800', '/%EF%BF%BD'],
  ['docs', '/docs'],
];

/** Runs `check` on each value, four at a time: each log-in is a password hash, and libuv hashes four at once. */
async function inTurns<T>(values: readonly T[], check: (value: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < values.length; i += 4) await Promise.all(values.slice(i, i + 4).map(check));
}

describe('a sign-in goes on to a path of this site, whatever next= holds', () => {
  let server: ListeningApp;
  let origin: string;
  before(async () => {
    server = await startApp({ loginFailures: 1000, loginFailuresPerAddress: 1000 });
    origin = new URL(server.base).origin;
    const { account } = await server.catalog.addUser('judy');
    await server.store.setPasswordHash(account.id, await hashPassword(password));
  });
  after(() => server.close());

  /** The `next` the log-in form opened from `/login?next=…` keeps (as the browser reads it), which it sends back. */
  async function keptBy(next: string): Promise<string | undefined> {
    const page = await new WebClient(server.base).get(`/login?${new URLSearchParams({ next })}`);
    assert.equal(page.status, 200, JSON.stringify(next));
    return unescape(/name="next" value="([^"]*)"/.exec(await page.text())?.[1]);
  }

  /** Logs in with `next` as the form's field. */
  async function logIn(next: string): Promise<Response> {
    const client = new WebClient(server.base);
    return client.post('/login', { _csrf: await client.token('/login'), name: 'judy', password, next });
  }

  /** A form field as posted: a NUL anywhere refuses the whole form (no stored text holds one), other values sign in. */
  function assertRawAnswer(raw: Response, next: string, location: string): void {
    if (!next.includes('\u0000')) return void assert.equal(assertSameSite(raw, JSON.stringify(next)), location);
    assert.equal(raw.status, 400);
    assert.equal(raw.headers.get('siphon-error-code'), 'SIPHON_ERR_FORM_INVALID');
  }

  /** A 303 whose Location a browser resolves to this site, in printable ASCII only. */
  function assertSameSite(res: Response, what: string): string {
    assert.equal(res.status, 303, what);
    const location = res.headers.get('location') ?? '';
    assert.match(location, /^\/[\x21-\x7e]*$/, what);
    assert.doesNotMatch(location, /^\/[/\\]/, what);
    assert.equal(new URL(location, origin).origin, origin, what);
    return location;
  }

  test('another site, another scheme or a value too long: /account, and the form keeps no next', async () => {
    await inTurns(elsewhere, async (next) => {
      const what = JSON.stringify(next.slice(0, 60));
      assert.equal(await keptBy(next), undefined, what);
      assertRawAnswer(await logIn(next), next, '/account');
    });
  });

  test('a path of this site: percent-encoded as the browser would, kept so in the form, round-tripping', async () => {
    await inTurns(here, async ([next, location]) => {
      const what = JSON.stringify(next);
      assert.equal(await keptBy(next), location, `${what} is kept cleaned in the form`);
      // What the form kept, sent back, is kept as it is: the form's own value leads where the link said.
      assert.equal(await keptBy(location), location, what);
      assertRawAnswer(await logIn(next), next, location);
    });
  });

  test('a refused log-in keeps only the cleaned next in the form it shows again', async () => {
    const client = new WebClient(server.base);
    for (const [next, cleaned] of [
      ['/\t/evil.example/', undefined],
      ['/?q=名前', '/?q=%E5%90%8D%E5%89%8D'],
    ] as const) {
      const res = await client.post('/login', { _csrf: await client.token('/login'), name: 'judy', password: 'wrong', next });
      assert.equal(res.status, 401);
      assert.equal(/name="next" value="([^"]*)"/.exec(await res.text())?.[1], cleaned, JSON.stringify(next));
    }
  });

  test('a next repeated, or sent in the query string of the POST, never makes a 5xx', async () => {
    const client = new WebClient(server.base);
    const token = await client.token('/login');
    const body = `_csrf=${encodeURIComponent(token)}&name=judy&password=${encodeURIComponent(password)}&next=%2F%2Fevil.example&next=%2Fdocs`;
    const res = await fetch(`${server.base}/login?next=%0D%0A`, {
      method: 'POST',
      redirect: 'manual',
      body,
      headers: { cookie: client.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(assertSameSite(res, 'repeated'), '/account', 'the first of a repeated field counts');
  });
});
