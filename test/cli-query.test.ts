/**
 * `siphon query` against a real server on a loopback port: each format byte for byte as the API
 * sends it, the table drawn at a terminal, a large result streamed in flat memory, and every refusal
 * in one line with its code, the key never shown.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { nodeFlags } from '../src/cli/node-flags.js';
import { freePort, runCli, type CliResult } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { siphonBin } from './helpers/paths.js';
import { addBigScraper, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
const results: CliResult[] = [];

before(async () => {
  // A 42 MB result read by a CLI whose young generation is kept small takes its time beside other
  // test files: the query's time limit is not what these tests are about.
  server = await startServer({ queryTimeoutMs: 120_000 });
  key = (await server.catalog.addUser('alice')).key;
  await server.catalog.addUser('bob');
  const db = makeDb(
    server.dataDir,
    'shop.sqlite',
    `create table items (id integer primary key, name text, price real, note text);
     insert into items values (1, 'Tea, green', 2.5, null), (2, 'Say "hi"', 10, ''), (3, 'two
lines', 0.1, 'ok');`,
  );
  await server.catalog.addScraper('alice/shop', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('bob/secret', db, { isPrivate: true, description: '' });
  await addBigScraper(server, 'alice/big');
});
after(async () => {
  for (const r of results) assert.ok(!`${r.stdout}${r.stderr}`.includes(key), 'the key is never printed');
  await server.close();
});

/** `siphon query` in this process, with the server and key in its environment. */
async function query(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const r = await runCli(['query', ...args], { env: { SIPHON_SERVER: server.base, SIPHON_KEY: key, ...env } });
  results.push(r);
  return r;
}

/** The API's own answer to the same query, as bytes. */
async function fromApi(scraper: string, format: string, sql: string): Promise<Buffer> {
  const response = await fetch(`${server.base}/${scraper}/data.${format}?${new URLSearchParams({ query: sql })}`, {
    headers: { 'X-API-Key': key },
  });
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}

const sql = 'select * from items order by id';

test('rows piped are csv by default, and json or ndjson with --format, byte for byte as the API sends them', async () => {
  const piped = await query(['alice/shop', sql]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, (await fromApi('alice/shop', 'csv', sql)).toString());
  assert.equal(piped.stderr, '');
  for (const format of ['csv', 'json', 'ndjson']) {
    const r = await query(['alice/shop', sql, '--format', format]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, (await fromApi('alice/shop', format, sql)).toString(), format);
  }
  // A key given as a flag works as the variable does.
  const flagged = await runCli(['query', 'alice/shop', sql, '--server', server.base, '--key', key]);
  results.push(flagged);
  assert.equal(flagged.stdout, piped.stdout);
});

test('at a terminal the rows are a table with capped columns and their count', async () => {
  const command = [
    process.execPath,
    ...nodeFlags,
    siphonBin,
    'query',
    'alice/shop',
    `${sql.replace('*', "id, name, note, printf('%0100d', 7) as wide")}`,
  ];
  const shell = command.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', shell, '/dev/null'], {
    env: { ...process.env, SIPHON_SERVER: server.base, SIPHON_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, out);
  assert.ok(!out.includes(key));
  const lines = out.replaceAll('\r', '').trimEnd().split('\n');
  assert.equal(lines[0], 'id  name        note  wide');
  assert.equal(lines[1], `--  ${'-'.repeat(10)}  ----  ${'-'.repeat(40)}`);
  assert.match(lines[2]!, /^1 {3}Tea, green {2}/);
  // A value with a line break stays on its row; one over 40 characters is cut with an ellipsis.
  assert.equal(lines[4], `3   two lines   ok    ${'0'.repeat(39)}…`);
  assert.equal(lines[5], '(3 rows)');
});

test('a large result is streamed: memory stays flat and the bytes are the API’s', async (t) => {
  /** Runs the real process under /usr/bin/time: its output's SHA-256 and length, and its peak memory in KB. */
  const measured = (query: string) =>
    new Promise<{ sha: string; bytes: number; maxKb: number; code: number | null }>((resolve) => {
      const child = spawn(
        '/usr/bin/time',
        ['-f', '%M', process.execPath, ...nodeFlags, '--max-semi-space-size=1', siphonBin, 'query', 'alice/big', query, '--format', 'json'],
        {
          env: { ...process.env, SIPHON_SERVER: server.base, SIPHON_KEY: key },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const hash = createHash('sha256');
      let bytes = 0;
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
      });
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('close', (code) => resolve({ sha: hash.digest('hex'), bytes, maxKb: Number(err.trim().split('\n').at(-1)), code }));
    });
  const wholeSql = 'select *, t as t2 from big';
  const small = await measured('select * from big limit 10');
  const whole = await measured(wholeSql);
  assert.equal(whole.code, 0);
  const api = await fromApi('alice/big', 'json', wholeSql);
  assert.equal(whole.bytes, api.length);
  assert.equal(whole.sha, createHash('sha256').update(api).digest('hex'));
  assert.ok(whole.bytes > 40e6, `${whole.bytes} bytes`);
  t.diagnostic(`peak memory: ${whole.maxKb} KB for ${whole.bytes} bytes, ${small.maxKb} KB for 10 rows`);
  // Held in memory, the output would take at least its own size; streamed, it costs buffers in
  // flight and the garbage V8 has not collected yet, which a young generation of 1 MB keeps small
  // (Node 24's larger default let it reach 32 MB of the 42 MB): well under three quarters of it.
  assert.ok((whole.maxKb - small.maxKb) * 1000 < whole.bytes * 0.75, `peak ${whole.maxKb} KB against ${small.maxKb} KB for 10 rows`);
});

test('-p NAME VALUE gives a :named parameter its value, bound as the API binds it; a mistake is one line', async () => {
  const named = 'select id, name from items where id = :id or name = :name order by id';
  const r = await query(['alice/shop', named, '-p', 'id', '2', '--param', ':name', 'Tea, green', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const api = await fetch(
    `${server.base}/alice/shop/data.json?${new URLSearchParams({ query: named, ':id': '2', ':name': 'Tea, green' })}`,
    {
      headers: { 'X-API-Key': key },
    },
  );
  assert.equal(r.stdout, await api.text());
  assert.deepEqual(JSON.parse(r.stdout), [
    { id: 1, name: 'Tea, green' },
    { id: 2, name: 'Say "hi"' },
  ]);
  // A value that reads like SQL, or starts with a dash, is a value.
  const injected = await query(['alice/shop', named, '-p', 'name', "' or 1=1 --", '-p', 'id', '-1']);
  assert.equal(injected.code, 0, injected.stderr);
  assert.equal(injected.stdout, 'id,name\n');

  const missing = await query(['alice/shop', named, '-p', 'id', '2']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^siphon: SIPHON_ERR_PARAM_MISSING: [^\n]*:name[^\n]*\n$/);
  const halfPair = await query(['alice/shop', named, '-p', 'id']);
  assert.match(halfPair.stderr, /^siphon: -p needs a name and a value: -p NAME VALUE\n/);
  const twice = await query(['alice/shop', named, '-p', 'id', '1', '-p', ':id', '2']);
  assert.match(twice.stderr, /^siphon: -p id is given twice\n/);
  const glued = await query(['alice/shop', named, '-pid', '1']);
  assert.match(glued.stderr, /^siphon: -p takes a name and a value as two words: -p NAME VALUE\n/);
});

test('refusals are one line on stderr with their code, and exit status 1', async () => {
  const sqlError = await query(['alice/shop', 'select nope from items']);
  assert.equal(sqlError.code, 1);
  assert.match(sqlError.stderr, /^siphon: SIPHON_ERR_\w+: .*no such column: nope\n$/);
  assert.equal(sqlError.stdout, '');

  // Another account's private scraper is answered as one that does not exist.
  const hidden = await query(['bob/secret', 'select 1']);
  const missing = await query(['bob/nothing', 'select 1']);
  assert.equal(hidden.code, 1);
  assert.equal(hidden.stderr, "siphon: SIPHON_ERR_SCRAPER_NOT_FOUND: can't find scraper bob/secret\n");
  assert.equal(missing.stderr, hidden.stderr.replace('secret', 'nothing'));

  const port = await freePort();
  const refused = await query(['alice/shop', 'select 1'], { SIPHON_SERVER: `http://127.0.0.1:${port}` });
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, `siphon: cannot reach Siphon at http://127.0.0.1:${port}: connection refused (is Siphon running there?)\n`);

  const noKey = await query(['alice/shop', 'select 1'], { SIPHON_KEY: '' });
  assert.equal(noKey.code, 1);
  assert.match(noKey.stderr, /^siphon: query needs an API key: set \$SIPHON_KEY \(or give --key KEY\)\n/);
  const badFormat = await query(['alice/shop', 'select 1', '--format', 'atom']);
  assert.match(badFormat.stderr, /^siphon: --format must be csv, json, ndjson, not "atom"\n/);
  const badName = await query(['alice', 'select 1']);
  assert.match(badName.stderr, /^siphon: name the scraper as OWNER\/SCRAPER, not "alice"\n/);

  // Revoked last: the key is refused from the next request on.
  assert.ok(await server.catalog.revokeKey(key));
  const revoked = await query(['alice/shop', 'select 1']);
  assert.equal(revoked.code, 1);
  assert.match(revoked.stderr, /^siphon: SIPHON_ERR_KEY_\w+: [^\n]+\n$/);
});
