import assert from 'node:assert/strict';
import { existsSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { addUser, countRows, freePort, listFiles, runCli, runCliOk, startServe, waitFor, type CliResult } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { demoKey, demoRecord, logRecords } from './helpers/log-lines.js';
import { dataUrl } from './helpers/server.js';

const keyLine = /^sph_[A-Za-z0-9_-]{32}$/;

/** A failure must be told on stderr in one clear sentence, not as a stack trace, and print nothing on stdout. */
function assertRefused(r: CliResult, message: RegExp): void {
  assert.equal(r.code, 1, `exit status; stderr: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '');
}

const sourceDir = tempDir();
const goodDb = makeDb(sourceDir, 'good.sqlite', `create table t (x integer); insert into t values (1), (2), (3);`);

describe('commands work end to end through bin/siphon', () => {
  const dataDir = tempDir();

  test('user add prints exactly one line holding a key, key create prints a different one, both work over HTTP', async () => {
    const first = await runCliOk(['user', 'add', 'alice'], { dataDir, ownProcess: true });
    assert.match(first, /^sph_\S+\n$/, 'one line, nothing else');
    const key1 = first.trim();
    assert.match(key1, keyLine);
    const second = await runCliOk(['key', 'create', 'alice'], { dataDir, ownProcess: true });
    assert.match(second, /^sph_\S+\n$/);
    const key2 = second.trim();
    assert.notEqual(key2, key1);
    const readOnly = (await runCliOk(['key', 'create', 'alice', '--read-only'], { dataDir, ownProcess: true })).trim();
    assert.match(readOnly, keyLine);

    const added = await runCliOk(['scraper', 'add', 'alice/things', '--db', goodDb, '--description', 'Some things'], {
      dataDir,
      ownProcess: true,
    });
    assert.match(added, /added alice\/things \(public\): t \(3 rows\)/);

    const server = await startServe(['--port', '0'], { dataDir });
    try {
      for (const key of [key1, key2, readOnly]) {
        const res = await fetch(dataUrl(server.base, 'alice/things', 'json', { key, query: 'select sum(x) as s from t' }));
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), [{ s: 6 }]);
      }
      const info = (await (await fetch(`${server.base}/alice/things.json`)).json()) as { description: string };
      assert.equal(info.description, 'Some things');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('scraper add --private registers a scraper the API does not reveal', async () => {
    await runCliOk(['scraper', 'add', 'alice/secret', '--db', goodDb, '--private'], { dataDir, ownProcess: true });
    assert.equal(countRows(dataDir).scrapers, 2);
    const server = await startServe(['--port', '0'], { dataDir });
    try {
      assert.equal((await fetch(`${server.base}/alice/secret.json`)).status, 404);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('key revoke prints revoked and exits 0', async () => {
    const key = (await runCliOk(['key', 'create', 'alice'], { dataDir, ownProcess: true })).trim();
    assert.equal(await runCliOk(['key', 'revoke', key], { dataDir, ownProcess: true }), 'revoked\n');
  });

  test('scraper publish replaces the data', async () => {
    const newer = makeDb(sourceDir, 'newer.sqlite', `create table u (y text); insert into u values ('a');`);
    assert.match(await runCliOk(['scraper', 'publish', 'alice/things', '--db', newer], { dataDir, ownProcess: true }), /data version 2/);
  });
});

describe('bad input: exit 1, a clear message, nothing created', () => {
  /** Usage errors are found before the data folder is touched, so it must not even appear. */
  const usageCases: [string, string[], RegExp][] = [
    ['an unknown command', ['frobnicate'], /unknown command: frobnicate/],
    ['an unknown subcommand', ['user', 'delete', 'bob'], /unknown command: user delete/],
    ['a missing NAME', ['user', 'add'], /user add takes one argument/],
    ['extra arguments', ['user', 'add', 'bob', 'carol'], /user add takes one argument/],
    ['an unknown flag', ['user', 'add', 'bob', '--colour'], /^siphon: unknown option --colour\nRun 'siphon help' for usage\.\n$/],
    ['a flag not for this command', ['user', 'add', 'bob', '--read-only'], /user add does not take --read-only/],
    ['--db given to key create', ['key', 'create', 'bob', '--db', 'x.sqlite'], /key create does not take --db/],
    ['a dash name, read as a flag', ['user', 'add', '-x'], /^siphon: unknown option -x\n/],
    ['scraper add without --db', ['scraper', 'add', 'alice/s'], /scraper add needs --db FILE/],
    ['scraper publish without --db', ['scraper', 'publish', 'alice/s'], /scraper publish needs --db FILE/],
    ['a group word alone', ['key'], /^siphon: unknown command: key\nRun 'siphon help' for usage\.\n$/],
    ['help for an unknown command', ['help', 'user', 'delete'], /^siphon: unknown command: user delete\n/],
    ['a flag with no value', ['user', 'add', 'bob', '--label'], /^siphon: --label needs a value\n/],
    [
      'a flag whose value looks like a flag',
      ['scraper', 'add', 'alice/s', '--db', '--private'],
      /--db needs a value; one starting with a dash is written --db=--private/,
    ],
    ['a flag given twice', ['user', 'add', 'bob', '--label', 'a', '--label', 'b'], /^siphon: --label is given twice\n/],
    ['a value for a switch', ['scraper', 'add', 'alice/s', '--db', 'x', '--private=yes'], /^siphon: --private takes no value\n/],
    ['arguments to serve', ['serve', 'now'], /^siphon: serve takes no arguments\nRun 'siphon help serve' for usage\.\n$/],
    ['two owners to scraper list', ['scraper', 'list', 'alice', 'bob'], /scraper list takes at most one argument \(\[OWNER\]\)/],
    ['scraper set with nothing to set', ['scraper', 'set', 'alice/s'], /scraper set needs --description TEXT, --private or --public/],
    [
      'scraper set --private --public',
      ['scraper', 'set', 'alice/s', '--private', '--public'],
      /scraper set takes --private or --public, not both/,
    ],
    ['downloads prune without --before', ['downloads', 'prune'], /downloads prune needs --before DATE/],
    [
      'downloads prune --before a day that does not exist',
      ['downloads', 'prune', '--before', '2026-02-30'],
      /--before must be a day written YYYY-MM-DD, not "2026-02-30"/,
    ],
    [
      'downloads prune --before words',
      ['downloads', 'prune', '--before', 'yesterday'],
      /--before must be a day written YYYY-MM-DD, not "yesterday"/,
    ],
    ['a setting of serve given to user add', ['user', 'add', 'bob', '--query-timeout', '5'], /user add does not take --query-timeout/],
    ['--version with a command', ['user', 'list', '--version'], /user list does not take --version/],
  ];
  for (const [what, args, message] of usageCases) {
    test(`${what} is refused before anything is created`, async () => {
      const dataDir = path.join(tempDir(), 'data');
      assertRefused(await runCli(args, { dataDir }), message);
      assert.equal(existsSync(dataDir), false, 'the data folder was not created');
    });
  }

  // serve checks its numbers before it opens (or creates) the data folder.
  for (const [what, args, message] of [
    ['--port abc', ['--port', 'abc'], /--port must be a port number from 0 to 65535, not "abc"/],
    ['PORT=abc', [], /\$PORT must be a port number from 0 to 65535, not "abc" \(the setting port, also --port N\)/],
    ['--port 70000.5', ['--port', '70000.5'], /--port must be a port number from 0 to 65535/],
    [
      '--query-timeout -1',
      ['--query-timeout=-1'],
      /--query-timeout must be a positive number of seconds up to 2147483, not "-1" \(the setting query-timeout, also \$SIPHON_QUERY_TIMEOUT\)/,
    ],
    // Old data versions are kept 10 minutes for requests waiting in the queue (src/scrapers/versions.ts).
    ['--queue-timeout 301', ['--queue-timeout', '301'], /--queue-timeout must be a positive number of seconds up to 300, not "301"/],
  ] as [string, string[], RegExp][]) {
    test(`serve ${what} exits 1 without serving or creating anything`, async () => {
      const env: Record<string, string> = what.startsWith('PORT') ? { PORT: 'abc' } : {};
      const dataDir = path.join(tempDir(), 'data');
      assertRefused(await runCli(['serve', ...args], { dataDir, env }), message);
      assert.equal(existsSync(dataDir), false, 'the data folder was not created');
    });
  }

  describe('with an existing account', () => {
    const dataDir = tempDir();
    let key: string;
    before(async () => {
      key = await addUser(dataDir, 'alice');
      await runCliOk(['scraper', 'add', 'alice/exists', '--db', goodDb], { dataDir });
    });

    const nameCases: [string, string, RegExp][] = [
      ['a/b', 'a/b', /"a\/b" is not a valid account name/],
      ['an empty name', '', /"" is not a valid account name/],
      ['-x given after --', '-x', /"-x" is not a valid account name/],
      // Would be hidden behind the /docs page.
      ['docs, a page of the site', 'Docs', /"Docs" is not a valid account name.*not docs/],
    ];
    for (const [what, name, message] of nameCases) {
      test(`user add refuses the bad account name ${what}`, async () => {
        // After `--` so that '-x' reaches the name check rather than the flag parser.
        const r = await runCli(['user', 'add', '--', name], { dataDir });
        assertRefused(r, message);
        assert.deepEqual(countRows(dataDir), { accounts: 1, api_keys: 1, scrapers: 1, downloads: 0 });
      });
    }

    test('user add of an existing account (in any case) is refused and adds no key', async () => {
      assertRefused(await runCli(['user', 'add', 'alice'], { dataDir }), /An account named alice already exists/);
      assertRefused(await runCli(['user', 'add', 'ALICE'], { dataDir }), /already exists/);
      assert.deepEqual(countRows(dataDir), { accounts: 1, api_keys: 1, scrapers: 1, downloads: 0 });
    });

    test('key create for an unknown account is refused', async () => {
      assertRefused(await runCli(['key', 'create', 'nobody'], { dataDir }), /There is no account named nobody/);
      assert.equal(countRows(dataDir).api_keys, 1);
    });

    test('key revoke of an unknown key is refused, and the real key still is not revoked', async () => {
      assertRefused(await runCli(['key', 'revoke', `${key}x`], { dataDir }), /no such key/);
      assertRefused(await runCli(['key', 'revoke', 'sph_nope'], { dataDir }), /no such key/);
    });

    describe('scraper add leaves no scraper row and no file behind', () => {
      const textFile = path.join(sourceDir, 'notes.txt');
      const emptyFile = path.join(sourceDir, 'empty.sqlite');
      const truncated = path.join(sourceDir, 'truncated.sqlite');
      before(() => {
        writeFileSync(textFile, 'this is not a database\n');
        writeFileSync(emptyFile, '');
        // Big enough to span many pages, then cut in half: the header is valid, the rest is missing.
        const big = makeDb(
          sourceDir,
          'big.sqlite',
          `create table t (s text);
          with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000)
          insert into t select printf('row %d %.*c', i, 40, 'x') from n;`,
        );
        const bytes = readFileSync(big);
        writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
      });

      const cases: [string, () => string[], RegExp][] = [
        ['an unknown owner', () => ['nobody/s', '--db', goodDb], /There is no account named nobody/],
        ['a nonexistent file', () => ['alice/s', '--db', path.join(sourceDir, 'missing.sqlite')], /missing\.sqlite: no such file/],
        ['a text file', () => ['alice/s', '--db', textFile], /notes\.txt is not an SQLite database/],
        ['an empty file', () => ['alice/s', '--db', emptyFile], /empty\.sqlite is not an SQLite database/],
        ['a truncated SQLite file', () => ['alice/s', '--db', truncated], /truncated\.sqlite (cannot be read as SQLite|is damaged)/],
        ['the scraper name x.json', () => ['alice/x.json', '--db', goodDb], /"x\.json" is not a valid scraper name/],
        ['the name a/b/c', () => ['a/b/c', '--db', goodDb], /is not a valid account name/],
        ['an existing scraper', () => ['alice/exists', '--db', goodDb], /Scraper alice\/exists already exists; use publish/],
        ['an existing scraper named in another case', () => ['Alice/EXISTS', '--db', goodDb], /already exists/],
      ];
      for (const [what, args, message] of cases) {
        test(`scraper add with ${what}`, async () => {
          const filesBefore = listFiles(path.join(dataDir, 'scrapers'));
          assertRefused(await runCli(['scraper', 'add', ...args()], { dataDir }), message);
          assert.equal(countRows(dataDir).scrapers, 1, 'no new row in scrapers');
          assert.deepEqual(listFiles(path.join(dataDir, 'scrapers')), filesBefore, 'no leftover file');
        });
      }

      test('scraper publish of an unknown scraper or a bad file changes nothing', async () => {
        const filesBefore = listFiles(path.join(dataDir, 'scrapers'));
        assertRefused(await runCli(['scraper', 'publish', 'alice/nope', '--db', goodDb], { dataDir }), /can't find scraper alice\/nope/);
        assertRefused(await runCli(['scraper', 'publish', 'alice/exists', '--db', textFile], { dataDir }), /not an SQLite database/);
        assert.deepEqual(listFiles(path.join(dataDir, 'scrapers')), filesBefore);
      });
    });
  });
});

describe('where the data folder is', () => {
  test('--data-dir wins over SIPHON_DATA_DIR, which wins over ./data', async () => {
    const root = tempDir();
    const flagDir = path.join(root, 'flag');
    const envDir = path.join(root, 'env');
    await runCliOk(['user', 'add', 'viaflag'], { dataDir: flagDir, env: { SIPHON_DATA_DIR: envDir }, cwd: root });
    assert.equal(countRows(flagDir).accounts, 1);
    assert.equal(existsSync(envDir), false, 'the environment folder is not used when --data-dir is given');

    await runCliOk(['user', 'add', 'viaenv'], { env: { SIPHON_DATA_DIR: envDir }, cwd: root });
    assert.equal(countRows(envDir).accounts, 1);
    assert.equal(existsSync(path.join(root, 'data')), false);

    await runCliOk(['user', 'add', 'viacwd'], { cwd: root });
    assert.equal(countRows(path.join(root, 'data')).accounts, 1);
    assert.equal(countRows(flagDir).accounts, 1, 'the other folders are untouched');
    assert.equal(countRows(envDir).accounts, 1);
  });
});

describe('serve', () => {
  const dataDir = tempDir();

  test('--port 0 picks a free port and the banner tells which, and names the web pages', async () => {
    const server = await startServe(['--port', '0'], { dataDir, timeoutMs: 10_000 });
    try {
      assert.notEqual(server.port, 0);
      assert.equal(server.banner, `Siphon is serving ${dataDir} at http://127.0.0.1:${server.port}`);
      assert.equal((await fetch(`${server.base}/nobody/nothing.json`)).status, 404);
      const start = logRecords(server.stdout()).find((r) => String(r.msg).startsWith('Siphon is serving '));
      const pages = [start?.home, start?.docs];
      assert.deepEqual(pages, [`${server.base}/`, `${server.base}/docs`]);
      for (const url of pages as string[]) {
        const page = await fetch(url);
        assert.equal(page.status, 200, url);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/, url);
      }
    } finally {
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    }
  });

  test('PORT is honoured, and --demo prints a key and a curl line that work', async () => {
    const port = await freePort();
    const server = await startServe(['--demo'], { dataDir, env: { PORT: String(port) } });
    try {
      assert.equal(server.port, port);
      // The demo lines are written just after the banner and may arrive in a later chunk.
      await waitFor(() => /curl '/.test(server.stdout()), 5000);
      const demo = demoRecord(server.stdout());
      assert.equal(demo.page, `${server.base}/demo/planning-applications`);
      const curl = /^curl '([^']+)'$/.exec(demo.curl)?.[1];
      assert.ok(curl, demo.curl);
      assert.ok(curl.includes(`key=${demo.demoKey}`));
      const res = await fetch(curl);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as unknown[]).length, 3);
    } finally {
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    }
  });
});

test('--demo prints the same working key at every start, and seeds the demo once', async () => {
  const dataDir = tempDir();
  const keys: string[] = [];
  for (let start = 0; start < 2; start++) {
    const server = await startServe(['--demo', '--port', '0'], { dataDir });
    try {
      await waitFor(() => /curl '/.test(server.stdout()), 5000);
      const key = demoKey(server.stdout());
      keys.push(key);
      const res = await fetch(`${server.base}/demo/planning-applications/data.csv?query=select+count(*)+as+n+from+data`, {
        headers: { 'X-API-Key': key },
      });
      assert.equal(await res.text(), 'n\n300\n');
    } finally {
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    }
  }
  assert.equal(keys[0], keys[1]);
  assert.deepEqual(countRows(dataDir), { accounts: 1, api_keys: 1, scrapers: 1, downloads: 2 });
});

test('--help exits 0 with the usage on stdout', async () => {
  const cwd = tempDir();
  for (const args of [['--help'], ['-h'], ['help'], []]) {
    const r = await runCli(args, { cwd, ownProcess: true });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: siphon \[--data-dir DIR\] <command>/);
    assert.match(r.stdout, /scraper publish OWNER\/NAME/);
    assert.equal(r.stderr, '');
  }
  assert.equal(existsSync(path.join(cwd, 'data')), false, 'asking for help creates no data folder');
});
