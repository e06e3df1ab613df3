/**
 * The fuzz generator's requests to the pages and the account routes: log-in with `next=`, sign-up,
 * log-out, the account's forms, owner pages and forms, the download buttons' addresses, scraper pages with the query builder's
 * parameters, /docs and the home page's search, each field holding a hostile value (another site
 * in a redirect target, control characters, bidirectional overrides, broken percent-encoding, NUL,
 * text far past any field's length). Forms usually carry a signed-in visitor's session and CSRF
 * token, so that they reach their handlers rather than stopping at the token check.
 */
import type { Random } from './fuzz-requests.js';

/**
 * The signed-in visitor the forms are sent as: an account of its own (the keys its forms revoke are
 * never those the rest of the run uses), owner of `scraper`.
 */
export interface FuzzVisitor {
  /** `siphon_session=…`, as a Cookie header holds it. */
  cookie: string;
  csrf: string;
  account: string;
  password: string;
  /** `owner/name` of the visitor's own public scraper. */
  scraper: string;
}

export interface WebRequest {
  method: 'GET' | 'POST';
  target: string;
  headers: string[];
  body?: { bytes: Buffer; type: string };
}

/** Values an attacker or a clumsy client puts in a field, a redirect target first among them. */
const hostileValues = [
  '/\t/evil.example/',
  '/%09/evil.example/',
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '/.//evil.example',
  'https://evil.example',
  'javascript:alert(1)',
  'data:text/html,x',
  '/\r\n/evil.example',
  '/a\r\nSet-Cookie: x=1',
  '/\u000bx',
  '/?q=名前',
  '名前',
  '\u3000',
  '\u0000',
  '/\u0000',
  '\u001b[31mred',
  '\u009b31m',
  'a\u202eb',
  'a\u2028b',
  '\ud800',
  '%',
  '%ZZ',
  '%E0%A4%A',
  '%00',
  '"><script>alert(1)</script>',
  "' onmouseover='alert(1)",
  '../../../etc/passwd',
  'docs',
  'private',
  'public',
  '1',
  '-1',
  '1e309',
  '',
];

const textChars = 'abcXYZ09 -_./\\:;?#&=%+"\'<>`{}|^~\t€漢😀\u0000\u001b\u007f\u0085\u00a0\u202e\u3000';

/** One hostile value: from the list, random text, or text far past what any field takes. */
function hostile(r: Random): string {
  return r.weighted<() => string>([
    [6, () => r.pick(hostileValues)],
    [3, () => r.text(textChars, r.int(60))],
    [0.3, () => r.text(textChars, 1_000 + r.int(5_000))],
    [0.2, () => `/${'a'.repeat(2_000 + r.int(20_000))}`],
  ])();
}

/** `value` percent-encoded as a URL or form carries it, now and then with a raw or broken piece. */
function encoded(r: Random, value: string): string {
  let out = '';
  for (const ch of value) {
    const roll = r.next();
    if (roll < 0.93) out += encodeURIComponent(ch === '\ud800' ? '\ufffd' : ch);
    else if (roll < 0.97) out += /[\u0000-\u0020\u007f-\uffff]/.test(ch) ? encodeURIComponent(ch === '\ud800' ? '\ufffd' : ch) : ch;
    else out += r.pick(['%', '%Z', '%E0%A4%A', '%FF', '%00']);
  }
  return out;
}

function form(r: Random, fields: Record<string, string>): string {
  return Object.entries(fields)
    .filter(() => r.chance(0.9))
    .map(([name, value]) => `${name}=${encoded(r, value)}`)
    .join('&');
}

/** A form's POST: usually as the visitor, with its token; now and then without either, or with a forged one. */
function post(r: Random, visitor: FuzzVisitor, target: string, fields: Record<string, string>, asVisitor = true): WebRequest {
  const headers: string[] = [];
  if (asVisitor && r.chance(0.9)) headers.push(`Cookie: ${visitor.cookie}`);
  const token = r.weighted<string | undefined>([
    [8, visitor.csrf],
    [1, undefined],
    [1, hostile(r)],
  ]);
  const body = form(r, token === undefined ? fields : { _csrf: token, ...fields });
  return { method: 'POST', target, headers, body: { bytes: Buffer.from(body, 'latin1'), type: 'application/x-www-form-urlencoded' } };
}

function get(r: Random, visitor: FuzzVisitor, target: string): WebRequest {
  return { method: 'GET', target, headers: r.chance(0.5) ? [`Cookie: ${visitor.cookie}`] : [] };
}

/**
 * A download button's address (`/{owner}/{scraper}/download…`), with hostile table names, formats,
 * view parameters and `excel`, from this site or (as `Sec-Fetch-Site` says) another.
 */
function download(r: Random, visitor: FuzzVisitor, scraper: string): WebRequest {
  const q = (name: string) => `${encoded(r, name)}=${encoded(r, hostile(r))}`;
  const names = ['excel', 'dl', 'key', '_sort', '_sort_desc', '_col', '_nocol', '_search', '_next', '_size', 'title', 'title__in', 'n__gt'];
  const params = names.filter(() => r.chance(0.2)).map(q);
  const path = r.chance(0.2)
    ? `/${scraper}/download.sqlite`
    : `/${scraper}/download/${r.chance(0.6) ? 'data' : encoded(r, hostile(r))}.${r.pick(['csv', 'json', encoded(r, hostile(r))])}`;
  const request = get(r, visitor, `${path}${params.length > 0 ? `?${params.join('&')}` : ''}`);
  if (r.chance(0.3)) request.headers.push(`Sec-Fetch-Site: ${r.pick(['cross-site', 'same-site', 'same-origin', 'none', 'nonsense'])}`);
  return request;
}

/** The owner's forms for saved queries (one name the run saves, edits and deletes, or a hostile one), another's edit page, and the query's page. */
function savedQueryForms(r: Random, visitor: FuzzVisitor, scraper: string): [number, () => WebRequest][] {
  const name = () => (r.chance(0.5) ? 'fuzzed' : encoded(r, hostile(r)));
  const fields = () => ({
    title: hostile(r),
    description: hostile(r),
    sql: r.chance(0.5) ? 'select :a as a' : hostile(r),
    private: hostile(r),
  });
  return [
    [1, () => post(r, visitor, `/${visitor.scraper}/queries`, { name: r.chance(0.5) ? 'fuzzed' : hostile(r), ...fields() })],
    [1, () => get(r, visitor, `/${scraper}/queries/${name()}/edit`)],
    [
      1,
      () =>
        get(
          r,
          visitor,
          `/${scraper}/queries/${name()}?a=${encoded(r, hostile(r))}${r.chance(0.2) ? `&version=${encoded(r, hostile(r))}` : ''}`,
        ),
    ],
    [1, () => post(r, visitor, `/${visitor.scraper}/queries/${name()}/edit`, fields())],
    [1, () => post(r, visitor, `/${visitor.scraper}/queries/${name()}/delete`, { confirm: r.pick(['1', hostile(r)]) })],
  ];
}

/** One request to a page or a form, with hostile values in its parameters or fields. */
export function webRequest(r: Random, visitor: FuzzVisitor, scrapers: readonly string[]): WebRequest {
  const scraper = r.pick([...scrapers, visitor.scraper]);
  const q = (name: string) => `${name}=${encoded(r, hostile(r))}`;
  return r.weighted<() => WebRequest>([
    [4, () => get(r, visitor, `/login?${q('next')}`)],
    [
      4,
      () =>
        post(r, visitor, `/login${r.chance(0.2) ? `?${q('next')}` : ''}`, {
          name: r.chance(0.5) ? visitor.account : hostile(r),
          // The right password rarely: each is a password hash, and most are throttled anyway.
          password: r.chance(0.02) ? visitor.password : hostile(r),
          next: hostile(r),
        }),
    ],
    [1, () => get(r, visitor, `/signup?${q('next')}`)],
    [2, () => post(r, visitor, '/signup', { name: hostile(r), password: hostile(r), password2: hostile(r), email: hostile(r) }, false)],
    // Never as the visitor: its session is kept for the forms.
    [1, () => post(r, visitor, '/logout', { next: hostile(r) }, false)],
    [2, () => get(r, visitor, `/account?${q('done')}`)],
    [1, () => post(r, visitor, '/account/keys', { label: hostile(r), readOnly: hostile(r), origins: hostile(r) })],
    [1, () => post(r, visitor, '/account/keys/revoke', { id: hostile(r) })],
    [1, () => post(r, visitor, '/account/password', { current: hostile(r), password: hostile(r), password2: hostile(r) })],
    [1, () => post(r, visitor, '/account/builder-key', { scraper: hostile(r) })],
    [3, () => get(r, visitor, `/${scraper}?${[q('table'), q('sql'), q('format'), q('callback')].filter(() => r.chance(0.7)).join('&')}`)],
    [2, () => download(r, visitor, scraper)],
    [1, () => get(r, visitor, `/${encoded(r, hostile(r))}`)],
    [1, () => get(r, visitor, `/${scraper.split('/')[0]}?${q('q')}`)],
    [1, () => get(r, visitor, `/?${q('q')}`)],
    [2, () => get(r, visitor, `/docs?${[q('scraper'), q('format'), q('callback'), q('sql')].filter(() => r.chance(0.7)).join('&')}`)],
    ...savedQueryForms(r, visitor, scraper),
    [
      2,
      () =>
        post(r, visitor, `/${visitor.scraper}/settings`, {
          description: hostile(r),
          // Kept public: a private scraper would change what the rest of the run's requests are answered.
          visibility: r.pick(['public', hostile(r)]).replace(/^private$/, 'public'),
        }),
    ],
  ])();
}
