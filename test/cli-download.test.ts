/**
 * `siphon download` against a real server on a loopback port: the SQLite file and a query's rows
 * byte for byte as the API sends them, under the server's name or -o's, and downloads cut short
 * (a body that stops, Ctrl-C) leaving no file behind.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { nodeFlags } from '../src/cli/node-flags.js';
import { runCli, waitFor, type CliResult } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { siphonBin } from './helpers/paths.js';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
const results: CliResult[] = [];

before(async () => {
  server = await startServer();
  key = (await server.catalog.addUser('alice')).key;
  const db = makeDb(
    server.dataDir,
    'shop.sqlite',
    `create table items (id integer primary key, name text); insert into items values (1, 'tea'), (2, 'Say "hi"');`,
  );
  await server.catalog.addScraper('alice/shop', db, { isPrivate: false, description: '' });
});
after(async () => {
  for (const r of results) assert.ok(!`${r.stdout}${r.stderr}`.includes(key), 'the key is never printed');
  await server.close();
});

async function download(args: string[], cwd: string, base = server.base): Promise<CliResult> {
  const r = await runCli(['download', ...args], { cwd, env: { SIPHON_SERVER: base, SIPHON_KEY: key } });
  results.push(r);
  return r;
}

async function fromApi(format: string, params: Record<string, string>): Promise<Buffer> {
  const response = await fetch(`${server.base}/alice/shop/data.${format}?${new URLSearchParams(params)}`, {
    headers: { 'X-API-Key': key },
  });
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}

test('the whole SQLite file by default, under the name the server gives, with no progress when piped', async () => {
  const cwd = tempDir();
  const r = await download(['alice/shop'], cwd);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^saved alice-shop\.sqlite \(\d+\.\d KB\)\n$/);
  assert.deepEqual(readdirSync(cwd), ['alice-shop.sqlite']);
  assert.deepEqual(readFileSync(path.join(cwd, 'alice-shop.sqlite')), await fromApi('sqlite', {}));
});

test("a query's rows in csv, json or ndjson, to -o's file or the server's name for the query", async () => {
  const cwd = tempDir();
  const query = 'select * from items order by id';
  for (const format of ['csv', 'json', 'ndjson']) {
    const r = await download(['alice/shop', '--query', query, '--format', format, '-o', `rows.${format}`], cwd);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readFileSync(path.join(cwd, `rows.${format}`)), await fromApi(format, { query }), format);
  }
  const named = await download(['alice/shop', '--query', 'select * from items'], cwd);
  assert.equal(named.code, 0, named.stderr);
  assert.equal(named.stdout.split(' ')[1], 'alice-shop-items.csv');
  assert.deepEqual(readdirSync(cwd).sort(), ['alice-shop-items.csv', 'rows.csv', 'rows.json', 'rows.ndjson']);
  // The query's :named parameters, given by -p.
  const byId = 'select * from items where id >= :from order by id';
  const some = await download(['alice/shop', '--query', byId, '-p', 'from', '2', '-o', 'some.csv'], cwd);
  assert.equal(some.code, 0, some.stderr);
  assert.deepEqual(readFileSync(path.join(cwd, 'some.csv')), await fromApi('csv', { query: byId, ':from': '2' }));
  assert.equal(readFileSync(path.join(cwd, 'some.csv'), 'utf8').split('\n').length, 3);
});

test('mistakes and refusals are one line, and leave no file', async () => {
  const cwd = tempDir();
  const both = await download(['alice/shop', '--format', 'sqlite', '--query', 'select 1'], cwd);
  assert.match(both.stderr, /^siphon: --query gives rows: download them as csv, json or ndjson\n/);
  const noQuery = await download(['alice/shop', '--format', 'csv'], cwd);
  assert.match(noQuery.stderr, /^siphon: --format csv needs --query SQL \(the whole database is --format sqlite\)\n/);
  const valueOfNothing = await download(['alice/shop', '-p', 'from', '2'], cwd);
  assert.match(valueOfNothing.stderr, /^siphon: -p gives a value to a parameter of --query SQL\n/);
  const missing = await download(['alice/nothing'], cwd);
  assert.equal(missing.stderr, "siphon: SIPHON_ERR_SCRAPER_NOT_FOUND: can't find scraper alice/nothing\n");
  for (const r of [both, noQuery, valueOfNothing, missing]) assert.equal(r.code, 1);
  assert.deepEqual(readdirSync(cwd), []);
});

test('at a terminal a progress line on stderr tells the bytes, the size, the rate and the time left', async () => {
  const cwd = tempDir();
  const command = [process.execPath, ...nodeFlags, siphonBin, 'download', 'alice/shop'];
  const shell = command.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', shell, '/dev/null'], {
    cwd,
    env: { ...process.env, SIPHON_SERVER: server.base, SIPHON_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0, out);
  const size = readFileSync(path.join(cwd, 'alice-shop.sqlite')).length;
  const shown = `${(size / 1024).toFixed(1)} KB`;
  // The last drawing, when the whole body has come: the line is redrawn in place.
  assert.match(out, new RegExp(`\\r\\x1b\\[K${shown} of ${shown}, [\\d.]+ [KMG]?B/s, 0 s left\\r?\\n`));
  assert.ok(!out.includes(key));
});

/**
 * A server that answers a download's headers and its first bytes, then `ending` the connection (it
 * plays a server that died part way, which a real one does at a moment no test can choose).
 */
async function serverCutting(ending: 'cut' | 'stall'): Promise<{ base: string; close(): void }> {
  const cutting = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/vnd.sqlite3', 'Content-Length': '1000000' });
    response.write(Buffer.alloc(64 * 1024));
    if (ending === 'cut') setImmediate(() => response.socket?.destroy());
  });
  await new Promise<void>((resolve) => cutting.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(cutting.address() as AddressInfo).port}`,
    close: () => cutting.close() && cutting.closeAllConnections(),
  };
}

test('a body cut short leaves no file, under the final name or a temporary one', async (t) => {
  const cutting = await serverCutting('cut');
  t.after(() => cutting.close());
  const cwd = tempDir();
  const r = await download(['alice/shop', '-o', 'shop.sqlite'], cwd, cutting.base);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^siphon: the answer was cut short \([^)]+\): the server stopped or the query failed part way\n$/);
  assert.deepEqual(readdirSync(cwd), []);
});

test('Ctrl-C during a download removes its temporary file; a key given as a flag is not in the process title', async (t) => {
  const stalling = await serverCutting('stall');
  t.after(() => stalling.close());
  const cwd = tempDir();
  const child = spawn(process.execPath, [...nodeFlags, siphonBin, 'download', 'alice/shop', '--server', stalling.base, '--key', key], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => child.on('close', resolve));
  // The temporary file is written while the body comes: the download is under way.
  await waitFor(() => readdirSync(cwd).some((name) => name.endsWith('.part')), 30_000);
  const title = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
  assert.ok(!title.includes(key), 'the key is not in the process title');
  assert.ok(title.startsWith('siphon download'), title);
  child.kill('SIGINT');
  assert.equal(await exited, 1);
  assert.equal(out, 'siphon: interrupted: nothing was saved\n');
  assert.deepEqual(readdirSync(cwd), []);
});
