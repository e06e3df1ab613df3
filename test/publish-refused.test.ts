import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listFiles, waitFor } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { publishRefusals } from './helpers/log-lines.js';
import { startServer, type TestServer } from './helpers/server.js';
import {
  publishUrl,
  putBody,
  putChunked,
  putHeadersOnly,
  putPartly,
  putUntilAnswered,
  readVersion,
  versionDb,
  type RawAnswer,
} from './helpers/upload.js';

/** Small, so the limit can be passed cheaply. */
const limit = 256 * 1024;
/** A client sending nothing for this long mid-upload is dropped. */
const idleMs = 1000;
let server: TestServer;
/** Keys by who holds them; the cases below name them, as they exist only once the server has started. */
const keys = { alice: '', aliceReadOnly: '', bob: '', revoked: '', unknown: 'sph_nothing' };

before(async () => {
  server = await startServer({ maxPublishBytes: limit, clientIdleTimeoutMs: idleMs });
  keys.alice = (await server.catalog.addUser('alice')).key;
  keys.aliceReadOnly = await server.catalog.createKey('alice', { readOnly: true });
  keys.bob = (await server.catalog.addUser('bob')).key;
  keys.revoked = await server.catalog.createKey('alice');
  await server.catalog.revokeKey(keys.revoked);
  await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/hidden', versionDb(1), { isPrivate: true, description: '' });
});
after(() => server.close());

/** Everything a failed publish must leave as it was: every file in the data folder, what readers see, the versions. */
async function state(): Promise<unknown> {
  const versions = await Promise.all(['plants', 'hidden'].map(async (n) => (await server.store.findScraper('alice', n))!.data));
  return { files: listFiles(server.dataDir), read: await readVersion(server.base, 'alice/plants', keys.bob), versions };
}

/** The refusals logged so far, in order. */
function refusals(): { code: string; status: number }[] {
  return publishRefusals(server.logs());
}

async function answer(res: Response): Promise<RawAnswer> {
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

function fileOf(bytes: Buffer): string {
  const file = path.join(tempDir(), 'body.bin');
  writeFileSync(file, bytes);
  return file;
}

describe('a refused publish changes nothing and leaves nothing behind', () => {
  const good = readFileSync(versionDb(9));
  type Who = keyof typeof keys;
  const as =
    (who: Who, more: Record<string, string> = {}) =>
    () => ({ 'x-api-key': keys[who], ...more });
  const send =
    (body: BodyInit, headers: () => Record<string, string>, scraper = 'alice/plants') =>
    async () =>
      answer(await putBody(server.base, scraper, body, headers()));
  const cases: [string, () => Promise<RawAnswer>, number, string, RegExp][] = [
    [
      'text instead of a database',
      send(Buffer.from('just some text'), as('alice')),
      400,
      'SIPHON_ERR_DATA_INVALID',
      /^The request body is not an SQLite database\.$/,
    ],
    [
      'a database cut in half',
      send(good.subarray(0, good.length / 2), as('alice')),
      400,
      'SIPHON_ERR_DATA_INVALID',
      /^The request body (cannot be read as SQLite|is damaged)/,
    ],
    [
      'a database cut after its first page',
      send(good.subarray(0, 4096), as('alice')),
      400,
      'SIPHON_ERR_DATA_INVALID',
      /^The request body (cannot be read as SQLite|is damaged)/,
    ],
    [
      'only the 16-byte SQLite header',
      send(good.subarray(0, 16), as('alice')),
      400,
      'SIPHON_ERR_DATA_INVALID',
      /^The request body cannot be read as SQLite/,
    ],
    [
      'a database with a page damaged',
      send(Buffer.concat([good.subarray(0, 8192), Buffer.alloc(4096, 0x5a), good.subarray(12288)]), as('alice')),
      400,
      'SIPHON_ERR_DATA_INVALID',
      /^The request body (cannot be read as SQLite|is damaged)/,
    ],
    ['an empty body', send(Buffer.alloc(0), as('alice')), 400, 'SIPHON_ERR_DATA_INVALID', /^The request body is empty/],
    [
      'a body of exactly the limit (read and judged, not too large)',
      send(Buffer.alloc(limit), as('alice')),
      400,
      'SIPHON_ERR_DATA_INVALID',
      /not an SQLite database/,
    ],
    [
      'a Content-Length one byte over the limit',
      send(Buffer.alloc(limit + 1), as('alice')),
      413,
      'SIPHON_ERR_DATA_TOO_LARGE',
      /larger than the publish limit of 262144 bytes/,
    ],
    [
      'a chunked body one byte over the limit',
      () => putChunked(publishUrl(server.base, 'alice/plants'), as('alice')(), fileOf(Buffer.alloc(limit + 1))),
      413,
      'SIPHON_ERR_DATA_TOO_LARGE',
      /publish limit/,
    ],
    [
      "curl's default form Content-Type",
      send(good, as('alice', { 'content-type': 'application/x-www-form-urlencoded' })),
      415,
      'SIPHON_ERR_CONTENT_TYPE',
      /^The body's Content-Type is not one this endpoint reads\. Send it as application\/vnd\.sqlite3 /,
    ],
    [
      'a JSON Content-Type',
      send(good, as('alice', { 'content-type': 'application/json' })),
      415,
      'SIPHON_ERR_CONTENT_TYPE',
      /^(?!.*json).*application\/vnd\.sqlite3/,
    ],
    [
      "another account's key",
      send(good, as('bob')),
      403,
      'SIPHON_ERR_FORBIDDEN',
      /^Only the owner's keys can publish data to alice\/plants\.$/,
    ],
    ["the owner's read-only key", send(good, as('aliceReadOnly')), 403, 'SIPHON_ERR_KEY_READ_ONLY', /read-only/],
    ['no key', send(good, () => ({})), 401, 'SIPHON_ERR_KEY_MISSING', /API key is missing/],
    ['an unknown key', send(good, as('unknown')), 401, 'SIPHON_ERR_KEY_INVALID', /not valid/],
    ['a revoked key', send(good, as('revoked')), 401, 'SIPHON_ERR_KEY_REVOKED', /revoked/],
    [
      'an unknown scraper',
      send(good, as('alice'), 'alice/nothing'),
      404,
      'SIPHON_ERR_SCRAPER_NOT_FOUND',
      /can't find scraper alice\/nothing/,
    ],
    [
      'an unknown owner',
      send(good, as('alice'), 'nobody/plants'),
      404,
      'SIPHON_ERR_SCRAPER_NOT_FOUND',
      /can't find scraper nobody\/plants/,
    ],
    [
      "another owner's private scraper (answered as unknown)",
      send(good, as('bob'), 'alice/hidden'),
      404,
      'SIPHON_ERR_SCRAPER_NOT_FOUND',
      /^can't find scraper alice\/hidden$/,
    ],
  ];

  for (const [name, call, status, code, message] of cases) {
    test(`${name}: ${status}`, async () => {
      const before = await state();
      const refused = refusals().length;
      const res = await call();
      assert.equal(res.status, status, res.body);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/);
      const { error } = JSON.parse(res.body) as { error: string };
      assert.match(error, message);
      assert.ok(!error.includes(server.dataDir) && !error.includes('.upload-'), `the server's paths leak: ${error}`);
      await waitFor(() => refusals().length > refused, 2000);
      assert.deepEqual(refusals().at(-1), { code, status });
      assert.deepEqual(await state(), before);
    });
  }

  test(
    'a Content-Length over the limit is refused before any of the body is sent, and the connection closed',
    { timeout: 10_000 },
    async () => {
      const before = await state();
      const res = await putHeadersOnly(publishUrl(server.base, 'alice/plants'), as('alice')(), 600 * 1024 * 1024);
      assert.equal(res.status, 413, res.body);
      assert.equal(res.headers.connection, 'close');
      assert.deepEqual(await state(), before);
    },
  );

  test('a chunked body is refused as soon as it passes the limit, without waiting for its end', { timeout: 10_000 }, async () => {
    const before = await state();
    const chunk = Buffer.alloc(16 * 1024, 1);
    // The request is never ended: only a server refusing mid-body can answer at all.
    const res = await putUntilAnswered(publishUrl(server.base, 'alice/plants'), as('alice')(), chunk, (4 * limit) / chunk.length);
    assert.equal(res.status, 413, res.body);
    assert.ok(res.chunksSent * chunk.length > limit, 'refused only once past the limit');
    assert.equal(res.headers.connection, 'close');
    assert.deepEqual(await state(), before);
  });

  for (const [then, status, code] of [
    ['abandon', 400, 'SIPHON_ERR_BODY_INCOMPLETE'],
    ['stall', 408, 'SIPHON_ERR_REQUEST_TIMEOUT'],
  ] as const) {
    test(
      `a client that goes away (${then}) mid-upload leaves no temporary file, the old data serving and no error logged`,
      { timeout: 10_000 },
      async () => {
        const before = await state();
        const refused = refusals().length;
        // A stalled client is only let go by the server, after idleMs without a byte.
        // The abandoning client goes away once the server has begun writing its upload to a temporary file.
        const uploading = () => waitFor(() => listFiles(server.dataDir).some((f) => path.basename(f).startsWith('.upload-')), 5000);
        await putPartly(
          publishUrl(server.base, 'alice/plants'),
          as('alice')(),
          Buffer.alloc(64 * 1024, 1),
          then === 'abandon' ? uploading : then,
        );
        await waitFor(() => refusals().length > refused, 5000);
        assert.deepEqual(refusals().at(-1), { code, status });
        assert.deepEqual(await state(), before);
        assert.ok(!server.logs().includes('"level":50'), 'nothing was logged as an error');
      },
    );
  }

  test('no key ever appears in the logs', () => {
    for (const key of Object.values(keys)) assert.ok(!server.logs().includes(key));
  });
});
