/**
 * Random and malformed HTTP/1.1 requests, as raw bytes, from a seeded generator: the same seed gives
 * the same requests, so a failure can be replayed. Each request is made of parts that are each
 * either sound or broken in one of the ways clients (and attackers) break them: methods, paths,
 * percent-encoding, invalid UTF-8, parameters and their spellings, keys, callbacks, headers, bodies,
 * framing, huge values, truncation. One in five goes to the pages and forms instead (fuzz-web.ts).
 */
import { webRequest, type FuzzVisitor } from './fuzz-web.js';

/** mulberry32: small, fast and good enough to pick test inputs. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  /** One of the choices, by weight. */
  weighted<T>(choices: readonly [number, T][]): T {
    let at = this.next() * choices.reduce((sum, [w]) => sum + w, 0);
    for (const [w, value] of choices) {
      at -= w;
      if (at < 0) return value;
    }
    return choices.at(-1)![1];
  }

  /** `length` characters drawn from `alphabet`. */
  text(alphabet: string, length: number): string {
    const chars = [...alphabet];
    let out = '';
    for (let i = 0; i < length; i += 1) out += this.pick(chars);
    return out;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i += 1) out[i] = this.int(256);
    return out;
  }
}

export interface FuzzContext {
  /** Keys the server knows: a valid one, a revoked one; and one it has never seen. */
  keys: { valid: string; revoked: string; unknown: string };
  /** `owner/name` of public scrapers whose table `data` has columns title, content, link and date. */
  scrapers: string[];
  /** The scrapers' owner, signed in on the web. */
  visitor: FuzzVisitor;
}

export interface FuzzRequest {
  bytes: Buffer;
  /** Cut before its end and the sending side closed: it may go unanswered. */
  truncated: boolean;
  /** A HEAD request: its answer has no body. */
  head: boolean;
  /** Sent in this many writes. */
  pieces: number;
  /** Keys this request carries anywhere: none may come back. */
  keys: string[];
  /** What it is made of, to tell a failure apart. */
  summary: string;
}

const tokenChars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~';
const urlChars = `${tokenChars}!$'()*+,;=:@/?&%#[]"<>\\^\`{|} `;
const sqlSamples = [
  'select * from "data" limit 3',
  'select title, date from "data" order by date desc limit 2',
  'select count(*) from "data"',
  'select title, content, link, date from "data"',
  'values (1, 2), (3, 4)',
  'with t(x) as (select 1) select x from t',
  'select 1; select 2',
  'select * from nothere',
  'selec 1',
  'delete from "data"',
  'pragma table_info("data")',
  "attach database '/tmp/x' as x",
  "select '€漢😀' as s",
  'select char(0)',
  'select zeroblob(1000)',
  '',
  '   ',
  '/* comment */ select 1 -- trailing',
  'select "unterminated',
  'select 1e999, -0.0, 9007199254740993',
  'with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000) select x from c',
];
const formats = ['json', 'csv', 'ndjson', 'atom', 'sqlite', 'xml', 'JSON', 'json.gz', 'sqlite3', ''];
const callbacks = [
  'cb',
  'my.cb_1$',
  '$',
  'a'.repeat(128),
  'a'.repeat(129),
  'alert(1)',
  "a(){}alert(document['domain']);function b",
  '1abc',
  '',
  'a..b',
  '</script>',
];
const brokenEscapes = ['%', '%Z', '%ZZ', '%E0%A4%A', '%FF', '%C0%80', '%ED%A0%80', '%00', '%2F', '%25', '%%', '%u0041', '%e2%82'];

/** Text with some characters percent-encoded, some broken escapes and some raw bytes thrown in. */
function mangle(r: Random, text: string): string {
  let out = '';
  for (const ch of text) {
    const roll = r.next();
    if (roll < 0.6) out += encodeURIComponent(ch);
    else if (roll < 0.9) out += ch === ' ' ? '+' : [...Buffer.from(ch)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    else if (roll < 0.97) out += ch;
    else out += r.pick(brokenEscapes);
  }
  return out;
}

/** A key as a client might send one: valid, revoked, unknown, empty, or not a key at all. */
function keyValue(r: Random, ctx: FuzzContext): string {
  return r.weighted<string>([
    [5, ctx.keys.valid],
    [1, ctx.keys.revoked],
    [1, ctx.keys.unknown],
    [1, ''],
    [1, r.text(urlChars, r.int(40))],
  ]);
}

/** `key` in the spellings that decode to it, and names that do not. */
const keyNames = ['key', 'key', 'key', '%6Bey', 'k%65y', 'ke%79', '%6b%65%79', 'KEY', 'api_key', 'Key'];

function sqlValue(r: Random): string {
  return r.weighted<() => string>([
    [8, () => r.pick(sqlSamples)],
    [2, () => r.text(urlChars, r.int(200))],
    // Near the SQL limit (100,000 characters), under and over, in characters that grow when encoded.
    [0.03, () => `select '${r.text('a€漢\'"+&=%', 99_980 + r.int(40))}'`],
    [0.1, () => r.text('x€', 5_000 + r.int(20_000))],
  ])();
}

/**
 * Parameters joined by `&`, or now and then by what clients mistake for a separator (`;`, `&amp;`).
 * `keys` gets the keys sent as parameters, which nothing may echo; a key joined by `;` is only part
 * of the value before it (a query's SQL, say), which error messages may quote.
 */
function queryString(r: Random, ctx: FuzzContext, keys: string[]): string {
  const params: string[] = [];
  const sent: string[] = [];
  const count = r.int(6);
  for (let i = 0; i < count; i += 1) {
    params.push(
      r.weighted<() => string>([
        [
          4,
          () => {
            const key = keyValue(r, ctx);
            sent.push(key);
            return `${r.pick(keyNames)}=${encodeURIComponent(key)}`;
          },
        ],
        [5, () => `query=${mangle(r, sqlValue(r))}`],
        [2, () => `callback=${mangle(r, r.pick(callbacks))}`],
        [2, () => `${mangle(r, r.text(urlChars, 1 + r.int(12)))}=${mangle(r, r.text(urlChars, r.int(30)))}`],
        [1, () => r.pick(['', '&', '=', '==', 'query', 'key', 'callback=', '%', '&&&', 'table=data', 'sql=select+1', 'format=atom'])],
      ])(),
    );
  }
  const separator = r.chance(0.95) ? '&' : r.pick(['&&', ';', '&amp;']);
  if (separator !== ';') keys.push(...sent);
  return params.join(separator);
}

function path(r: Random, ctx: FuzzContext): string {
  const scraper = r.pick([...ctx.scrapers, 'alice/nothing', 'nobody/planning', 'ALICE/Planning']);
  return r.weighted<() => string>([
    [10, () => `/${scraper}/data${r.chance(0.9) ? `.${r.pick(formats)}` : ''}`],
    [
      3,
      () =>
        r.pick([
          '/',
          '/alice',
          `/${scraper}`,
          '/docs',
          '/documentation/api',
          '/healthz',
          '/assets/site.css',
          '/assets/views/client/query-builder.js',
          '/assets/shared/api-request.js',
          `/${scraper}.json`,
          '/api',
          '/favicon.ico',
        ]),
    ],
    [2, () => `/${Array.from({ length: 1 + r.int(5) }, () => mangle(r, r.text(urlChars.replace(/[?#/ ]/g, ''), r.int(20)))).join('/')}`],
    [1, () => `/${scraper}/${mangle(r, r.text(tokenChars, 90 + r.int(60)))}`],
    [1, () => `/${scraper.replace('/', r.pick(['//', '/./', '/../', '%2F']))}/data.json`],
    [1, () => r.pick(['*', 'http://x/alice', '//alice/planning', '', `/${r.pick(brokenEscapes)}/data.json`])],
    [1, () => `/${r.bytes(1 + r.int(10)).toString('latin1')}`],
  ])();
}

function method(r: Random): string {
  return r.weighted<string>([
    [40, 'GET'],
    [20, 'POST'],
    [8, 'HEAD'],
    [5, 'OPTIONS'],
    [4, 'PUT'],
    [3, 'DELETE'],
    [2, 'PATCH'],
    [1, 'TRACE'],
    [1, 'PROPFIND'],
    [1, 'CONNECT'],
    [1, 'QUERY'],
    [1, 'get'],
    [1, 'G E T'],
    [1, r.text('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1 + r.int(10))],
  ]);
}

function header(r: Random, ctx: FuzzContext, keys: string[]): string | undefined {
  return r.weighted<() => string | undefined>([
    [
      3,
      () => {
        const key = keyValue(r, ctx);
        keys.push(key);
        return `${r.pick(['X-API-Key', 'x-api-key', 'X-Api-Key'])}: ${key}`;
      },
    ],
    [
      2,
      () => {
        const key = keyValue(r, ctx);
        keys.push(key);
        return `Authorization: ${r.pick(['Bearer ', 'bearer ', 'Basic ', 'Bearer\t', ''])}${key}`;
      },
    ],
    [2, () => `If-None-Match: ${r.pick(['*', 'W/"x"', '"abc", W/"def"', r.text(urlChars, r.int(40))])}`],
    [1, () => `If-Modified-Since: ${r.pick([new Date(r.int(2e12)).toUTCString(), 'yesterday', ''])}`],
    [
      2,
      () => `Accept-Encoding: ${r.pick(['gzip', 'br', 'gzip;q=0, br', '*', '*;q=0', 'identity;q=0', 'zstd', r.text(urlChars, r.int(20))])}`,
    ],
    [1, () => `Expect: ${r.pick(['100-continue', '100-Continue', 'nothing', ''])}`],
    [1, () => `Connection: ${r.pick(['close', 'keep-alive', 'Upgrade', 'TE, close'])}`],
    [1, () => 'Upgrade: websocket'],
    [1, () => `Origin: ${r.pick(['https://elsewhere.example', 'null', r.text(urlChars, 20)])}`],
    [2, () => `X-${r.text(tokenChars, 1 + r.int(10))}: ${r.text(urlChars, r.int(50))}`],
    // Broken: no colon, a space in the name, control characters, raw bytes, folding.
    [
      1,
      () =>
        r.pick([
          `Bad Header: 1`,
          'NoColon',
          `X-Ctl: a\x01b`,
          `X-Raw: ${r
            .bytes(8)
            .toString('latin1')
            .replace(/[\r\n]/g, '')}`,
          ' folded: 1',
          ': empty-name',
        ]),
    ],
    // Huge: past the header fields' bound now and then.
    [0.2, () => `X-Filler: ${r.text(tokenChars, 10_000 + r.int(20_000))}`],
  ])();
}

interface Body {
  bytes: Buffer;
  type?: string;
}

function body(r: Random, ctx: FuzzContext, keys: string[]): Body {
  return r.weighted<() => Body>([
    [4, () => ({ bytes: Buffer.from(queryString(r, ctx, keys), 'latin1'), type: 'application/x-www-form-urlencoded' })],
    [
      3,
      () => {
        const key = keyValue(r, ctx);
        keys.push(key);
        const value: Record<string, unknown> = {};
        if (r.chance(0.8)) value[r.chance(0.9) ? 'key' : 'api_key'] = r.chance(0.9) ? key : [key];
        if (r.chance(0.8)) value.query = r.chance(0.9) ? sqlValue(r) : 42;
        if (r.chance(0.3)) value.callback = r.pick(callbacks);
        const text = r.weighted<string>([
          [8, JSON.stringify(value)],
          [1, JSON.stringify([value])],
          [1, JSON.stringify(value).slice(0, -1 - r.int(5))],
        ]);
        return { bytes: Buffer.from(text), type: r.pick(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON']) };
      },
    ],
    [
      1,
      () => ({
        bytes: r.bytes(r.int(300)),
        type: r.pick([undefined, 'application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/vnd.sqlite3']),
      }),
    ],
    [1, () => ({ bytes: Buffer.alloc(0), type: r.pick([undefined, 'application/json']) })],
    [
      1,
      () => ({
        bytes: Buffer.from(r.text(urlChars, r.int(100))),
        type: r.pick(['multipart/form-data; boundary=x', 'text/plain', r.text(urlChars, 20)]),
      }),
    ],
    // Over the POST body's bound (908,192 bytes by default) now and then.
    [0.05, () => ({ bytes: Buffer.from(`query=${'q'.repeat(900_000 + r.int(100_000))}`), type: 'application/x-www-form-urlencoded' })],
  ])();
}

/** The body framed as sent: a Content-Length (right or wrong), chunked (sound or broken), or none. */
function framed(r: Random, payload: Buffer, headers: string[]): { bytes: Buffer; complete: boolean } {
  const framing = r.weighted<string>([
    [14, 'length'],
    [3, 'chunked'],
    [1, 'bad-chunked'],
    [1, 'short-length'],
    [1, 'long-length'],
    [1, 'bad-length'],
    [1, 'none'],
  ]);
  switch (framing) {
    case 'length':
      headers.push(`Content-Length: ${payload.length}`);
      return { bytes: payload, complete: true };
    case 'chunked': {
      headers.push('Transfer-Encoding: chunked');
      const parts: Buffer[] = [];
      for (let at = 0; at < payload.length;) {
        const size = Math.min(payload.length - at, 1 + r.int(64));
        parts.push(Buffer.from(`${size.toString(16)}\r\n`), payload.subarray(at, at + size), Buffer.from('\r\n'));
        at += size;
      }
      parts.push(Buffer.from('0\r\n\r\n'));
      return { bytes: Buffer.concat(parts), complete: true };
    }
    case 'bad-chunked':
      headers.push('Transfer-Encoding: chunked');
      return {
        bytes: Buffer.concat([
          Buffer.from(r.pick(['zz\r\n', `${(payload.length + 5).toString(16)}\r\n`, '-1\r\n', '1;\x01\r\n'])),
          payload,
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
        complete: true,
      };
    case 'short-length':
      // The rest reads as a second request, sent behind this one.
      headers.push(`Content-Length: ${r.int(payload.length + 1)}`);
      return { bytes: payload, complete: true };
    case 'long-length':
      headers.push(`Content-Length: ${payload.length + 1 + r.int(100)}`);
      return { bytes: payload, complete: false };
    case 'bad-length':
      headers.push(`Content-Length: ${r.pick(['-1', 'ten', '1, 2', '0x10', ''])}`);
      return { bytes: payload, complete: true };
    default:
      return { bytes: payload, complete: true };
  }
}

/** A request to a page or a form, well framed: what it tries is in its values. */
function pageRequest(r: Random, ctx: FuzzContext): FuzzRequest {
  const { method, target, headers, body } = webRequest(r, ctx.visitor, ctx.scrapers);
  headers.unshift('Host: 127.0.0.1', `Accept: ${r.pick(['text/html', '*/*', 'application/json'])}`, 'Connection: close');
  if (body) headers.push(`Content-Type: ${body.type}`, `Content-Length: ${body.bytes.length}`);
  const head = Buffer.from(`${method} ${target} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');
  return {
    bytes: Buffer.concat([head, body?.bytes ?? Buffer.alloc(0)]),
    truncated: false,
    head: false,
    pieces: 1,
    keys: [],
    summary: `page ${method} ${target.slice(0, 80)}${target.length > 80 ? '…' : ''} body ${body?.bytes.length ?? 0}`,
  };
}

/** One random request. */
export function fuzzRequest(r: Random, ctx: FuzzContext): FuzzRequest {
  if (r.chance(0.2)) return pageRequest(r, ctx);
  const keys: string[] = [];
  const verb = method(r);
  let target = path(r, ctx);
  if (r.chance(0.8)) target += `?${queryString(r, ctx, keys)}`;
  // A URL far past the bound now and then (Node's parser stops at 924,576 bytes by default).
  if (r.chance(0.003)) target += `&query=${'z'.repeat(1_000_000)}`;
  const version = r.weighted<string>([
    [95, 'HTTP/1.1'],
    [3, 'HTTP/1.0'],
    [1, 'HTTP/2.0'],
    [1, r.pick(['HTTP/1.1x', 'http/1.1', 'HTTP/9', ''])],
  ]);
  const headers: string[] = [];
  if (r.chance(0.95))
    headers.push(
      `Host: ${r.weighted<string>([
        [20, '127.0.0.1'],
        [1, 'a b'],
        [1, 'user@evil.example'],
        [1, ''],
        [1, 'x:99999'],
      ])}`,
    );
  const headerCount = r.int(5);
  for (let i = 0; i < headerCount; i += 1) {
    const h = header(r, ctx, keys);
    if (h !== undefined) headers.push(h);
  }
  let payload: Buffer = Buffer.alloc(0);
  let complete = true;
  if (verb === 'POST' || verb === 'PUT' || r.chance(0.05)) {
    const b = body(r, ctx, keys);
    if (b.type !== undefined) headers.push(`Content-Type: ${b.type}`);
    ({ bytes: payload, complete } = framed(r, b.bytes, headers));
  }
  const head = Buffer.from(`${verb} ${target}${version ? ` ${version}` : ''}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');
  let bytes = Buffer.concat([head, payload]);
  let truncated = !complete;
  if (r.chance(0.03)) {
    bytes = bytes.subarray(0, r.int(bytes.length));
    truncated = true;
  }
  return {
    bytes,
    truncated,
    head: verb === 'HEAD',
    pieces: r.chance(0.9) ? 1 : 2 + r.int(4),
    keys: keys.filter((k) => k.startsWith('sph_')),
    summary: `${verb} ${target.slice(0, 80)}${target.length > 80 ? '…' : ''} ${version} [${headers.map((h) => h.split(':')[0]).join(', ')}] body ${payload.length}${truncated ? ' truncated' : ''}`,
  };
}
