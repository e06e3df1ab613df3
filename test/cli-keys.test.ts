/**
 * Keys through the real bin/siphon: labels, keys limited to web origins (checked and normalised
 * when made), and `key list`, which shows each key by its prefix and never the key or its hash.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { hashKey } from '../src/keys.js';
import { countRows, openMeta, runCli, runCliOk, startServe, type CliResult } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { asBeforeKeyDetails } from './helpers/old-meta.js';
import { dataUrl } from './helpers/server.js';
import { putBody, versionDb } from './helpers/upload.js';

interface Listed {
  prefix: string;
  label: string;
  readOnly: string;
  origins: string;
  created: string;
  lastUsed: string;
  revoked: string;
}

/** `key list`, read back by its columns (found from the header: labels may hold spaces). */
async function keyList(dataDir: string, account: string): Promise<{ text: string; keys: Listed[] }> {
  const text = await runCliOk(['key', 'list', account], { dataDir });
  const [header, ...lines] = text.trimEnd().split('\n');
  const starts = ['PREFIX', 'LABEL', 'READ-ONLY', 'ORIGINS', 'CREATED', 'LAST USED', 'REVOKED'].map((name) => header!.indexOf(name));
  assert.ok(
    starts.every((s) => s >= 0),
    header,
  );
  const keys = lines.map((line) => {
    const [prefix, label, readOnly, origins, created, lastUsed, revoked] = starts.map((start, i) =>
      line.slice(start, starts[i + 1]).trim(),
    ) as [string, string, string, string, string, string, string];
    return { prefix, label, readOnly, origins, created, lastUsed, revoked };
  });
  return { text, keys };
}

/** Nothing of `key` beyond its prefix, and not its hash, in `text`. */
function assertNoKey(text: string, key: string): void {
  assert.ok(!text.includes(key.slice(0, 11)), 'no more of the key than its 10-character prefix');
  assert.ok(!text.includes(hashKey(key)), 'not its hash');
  assert.ok(!text.includes(hashKey(key).slice(0, 16)), 'not part of its hash');
}

function assertRefused(r: CliResult, message: RegExp): void {
  assert.equal(r.code, 1, `exit status; stderr: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '');
}

const isoSecond = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('labels, origins and key list', () => {
  const dataDir = tempDir();
  const keys: Record<string, string> = {};
  before(async () => {
    keys.first = (await runCliOk(['user', 'add', 'alice'], { dataDir })).trim();
    keys.labelled = (await runCliOk(['user', 'add', 'bob', '--label', 'nightly import'], { dataDir })).trim();
    keys.map = (
      await runCliOk(
        [
          'key',
          'create',
          'alice',
          '--origin',
          'HTTPS://Maps.Example.org:443/',
          '--origin',
          'http://localhost:8080',
          '--origin',
          'https://maps.example.org',
          '--label',
          'map page, public',
        ],
        { dataDir },
      )
    ).trim();
    keys.reader = (await runCliOk(['key', 'create', 'alice', '--read-only', '--label', 'reports'], { dataDir })).trim();
    keys.bare = (await runCliOk(['key', 'create', 'alice'], { dataDir })).trim();
  });

  test('each key is one line; key list shows prefix, label, read-only, origins (normalised, once each), created, last used, revoked', async () => {
    for (const key of Object.values(keys)) assert.match(key, /^sph_[A-Za-z0-9_-]{32}$/);
    const { keys: listed } = await keyList(dataDir, 'alice');
    assert.deepEqual(
      listed.map(({ created, ...rest }) => rest),
      [
        { prefix: `${keys.first!.slice(0, 10)}…`, label: 'first key', readOnly: 'no', origins: 'any', lastUsed: 'never', revoked: 'no' },
        {
          prefix: `${keys.map!.slice(0, 10)}…`,
          label: 'map page, public',
          readOnly: 'yes',
          origins: 'https://maps.example.org, http://localhost:8080',
          lastUsed: 'never',
          revoked: 'no',
        },
        { prefix: `${keys.reader!.slice(0, 10)}…`, label: 'reports', readOnly: 'yes', origins: 'any', lastUsed: 'never', revoked: 'no' },
        { prefix: `${keys.bare!.slice(0, 10)}…`, label: '-', readOnly: 'no', origins: 'any', lastUsed: 'never', revoked: 'no' },
      ],
    );
    for (const { created } of listed) assert.match(created, isoSecond);
    assert.deepEqual(
      (await keyList(dataDir, 'bob')).keys.map((k) => k.label),
      ['nightly import'],
    );
  });

  test('key list never shows a key or its hash, revoked keys included', async () => {
    await runCliOk(['key', 'revoke', keys.bare!], { dataDir });
    const { text, keys: listed } = await keyList(dataDir, 'alice');
    assert.match(listed[3]!.revoked, isoSecond);
    for (const key of Object.values(keys)) assertNoKey(text, key);
  });

  const badOrigins: [string, RegExp][] = [
    ['maps.example.org', /"maps\.example\.org" is not a web origin: it is not a URL/],
    ['https://maps.example.org/page', /an origin has no path, query or fragment/],
    ['https://maps.example.org/?x=1', /an origin has no path, query or fragment/],
    ['https://*.example.org', /wildcards are not supported/],
    ['*', /wildcards are not supported/],
    ['ftp://maps.example.org', /only http and https origins/],
    ['null', /it is not a URL/],
    ['https://user:pw@maps.example.org', /no user name or password/],
    ['', /it is not a URL/],
  ];
  for (const [origin, message] of badOrigins) {
    test(`key create --origin ${JSON.stringify(origin)} is refused and creates no key`, async () => {
      const before = countRows(dataDir).api_keys;
      // A good origin besides: one bad one refuses the whole key.
      assertRefused(
        await runCli(['key', 'create', 'alice', '--origin', 'https://ok.example', '--origin', origin], { dataDir }),
        new RegExp(`${message.source}.*such as https://maps\\.example\\.org`),
      );
      assert.equal(countRows(dataDir).api_keys, before);
    });
  }

  test('a label with a line break or over 100 characters is refused, by key create and user add', async () => {
    const before = countRows(dataDir);
    for (const args of [
      ['key', 'create', 'alice', '--label', 'two\nlines'],
      ['key', 'create', 'alice', '--label', 'x'.repeat(101)],
      ['user', 'add', 'carol', '--label', 'tab\there'],
    ]) {
      assertRefused(await runCli(args, { dataDir }), /A key's label is text of at most 100 characters, without line breaks/);
    }
    assert.deepEqual(countRows(dataDir), before, 'no account, no key');
  });

  test('key list of an unknown account, or with flags, is refused', async () => {
    assertRefused(await runCli(['key', 'list', 'nobody'], { dataDir }), /There is no account named nobody/);
    const fresh = path.join(tempDir(), 'data');
    assertRefused(
      await runCli(['key', 'list', 'alice', '--origin', 'https://a.example'], { dataDir: fresh }),
      /key list does not take --origin/,
    );
    assertRefused(
      await runCli(['user', 'add', 'dave', '--origin', 'https://a.example'], { dataDir: fresh }),
      /user add does not take --origin/,
    );
    assert.equal(existsSync(fresh), false, 'usage errors create nothing');
  });
});

describe('key revoke by prefix, for an operator without the key', () => {
  test("PREFIX --account NAME revokes that account's key, as key list shows it, and no other", async () => {
    const dataDir = tempDir();
    const first = (await runCliOk(['user', 'add', 'carol'], { dataDir })).trim();
    const leaked = (await runCliOk(['key', 'create', 'carol', '--label', 'leaked'], { dataDir })).trim();
    const other = (await runCliOk(['user', 'add', 'dan'], { dataDir })).trim();
    const shown = (await keyList(dataDir, 'carol')).keys.find((k) => k.label === 'leaked')!.prefix;
    assert.equal(shown, `${leaked.slice(0, 10)}…`);
    // As key list shows it (with its ellipsis) or without.
    assert.equal(await runCliOk(['key', 'revoke', shown, '--account', 'carol'], { dataDir }), 'revoked\n');
    const revoked = (await keyList(dataDir, 'carol')).keys.map((k) => [k.label, k.revoked === 'no']);
    assert.deepEqual(revoked, [
      ['first key', true],
      ['leaked', false],
    ]);
    const db = openMeta(dataDir);
    try {
      const revokedHashes = db.prepare('select hash from api_keys where revoked_at is not null').pluck().all();
      assert.deepEqual(revokedHashes, [hashKey(leaked)], "only that key; dan and carol's first key still work");
    } finally {
      db.close();
    }
    // Once revoked it no longer counts: the prefix names no key in use.
    assertRefused(
      await runCli(['key', 'revoke', leaked.slice(0, 10), '--account', 'carol'], { dataDir }),
      /^siphon: carol has no key in use with the prefix sph_\S{6}\n$/,
    );
    // Another account's key is not found by its prefix under carol.
    assertRefused(
      await runCli(['key', 'revoke', other.slice(0, 10), '--account', 'carol'], { dataDir }),
      /carol has no key in use with the prefix/,
    );
    assertRefused(
      await runCli(['key', 'revoke', first.slice(0, 10)], { dataDir }),
      /is a key's prefix: name its account too \(--account NAME\)/,
    );
    assertRefused(await runCli(['key', 'revoke', first, '--account', 'carol'], { dataDir }), /with --account, give the key's prefix/);
    assertRefused(
      await runCli(['key', 'revoke', first.slice(0, 10), '--account', 'nobody'], { dataDir }),
      /There is no account named nobody/,
    );
    assert.equal(await runCliOk(['key', 'revoke', first], { dataDir }), 'revoked\n', 'the key itself still revokes it');
  });
});

describe('last used', () => {
  test("is a key's latest download or publish, written with the downloads; never for an unused key", async () => {
    const dataDir = tempDir();
    const reader = (await runCliOk(['user', 'add', 'alice'], { dataDir })).trim();
    const publisher = (await runCliOk(['key', 'create', 'alice', '--label', 'publisher'], { dataDir })).trim();
    await runCliOk(['key', 'create', 'alice', '--label', 'unused'], { dataDir });
    await runCliOk(['scraper', 'add', 'alice/s', '--db', makeDb(tempDir(), 's.sqlite', 'create table t (x); insert into t values (1);')], {
      dataDir,
    });
    await runCliOk(['scraper', 'add', 'alice/plants', '--db', versionDb(1)], { dataDir });

    const server = await startServe(['--port', '0'], { dataDir });
    const publishedAfter = new Date().toISOString();
    try {
      for (const query of ['select 1', 'select 2', 'select * from nope']) {
        await (await fetch(dataUrl(server.base, 'alice/s', 'json', { query }), { headers: { 'x-api-key': reader } })).text();
      }
      const res = await putBody(server.base, 'alice/plants', readFileSync(versionDb(2)), { 'x-api-key': publisher });
      assert.equal(res.status, 200, await res.text());
    } finally {
      // Writes every download still waiting before it exits.
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    }

    const latestDownload = (() => {
      const db = openMeta(dataDir);
      try {
        return db
          .prepare('select max(at) from downloads d join api_keys k on k.id = d.key_id where k.prefix = ?')
          .pluck()
          .get(reader.slice(0, 10)) as string;
      } finally {
        db.close();
      }
    })();
    const listed = (await keyList(dataDir, 'alice')).keys;
    assert.equal(listed[0]!.lastUsed, latestDownload.replace(/\.\d+Z$/, 'Z'), 'the reader: its latest download');
    assert.match(listed[1]!.lastUsed, isoSecond, 'the publisher');
    assert.ok(listed[1]!.lastUsed >= publishedAfter.replace(/\.\d+Z$/, 'Z'));
    assert.equal(listed[2]!.lastUsed, 'never');
  });

  test('a metadata file from before key details is migrated: no label, prefix unknown, last use taken from its downloads', async () => {
    const dataDir = tempDir();
    const key = (await runCliOk(['user', 'add', 'alice'], { dataDir })).trim();
    await runCliOk(['scraper', 'add', 'alice/s', '--db', makeDb(tempDir(), 's.sqlite', 'create table t (x);')], { dataDir });
    const server = await startServe(['--port', '0'], { dataDir });
    try {
      await (await fetch(dataUrl(server.base, 'alice/s', 'csv', { query: 'select 1' }), { headers: { 'x-api-key': key } })).text();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    asBeforeKeyDetails(dataDir);
    const db = openMeta(dataDir);
    const downloaded = db.prepare('select max(at) from downloads').pluck().get() as string;
    db.close();

    const { text, keys: listed } = await keyList(dataDir, 'alice');
    assert.deepEqual(
      listed.map(({ created, ...rest }) => rest),
      [{ prefix: '(unknown)', label: '-', readOnly: 'no', origins: 'any', lastUsed: downloaded.replace(/\.\d+Z$/, 'Z'), revoked: 'no' }],
    );
    assert.match(listed[0]!.created, isoSecond, 'it keeps when it was made');
    assertNoKey(text, key);
    const migrated = openMeta(dataDir);
    assert.equal(migrated.pragma('user_version', { simple: true }), 8);
    migrated.close();
  });
});
