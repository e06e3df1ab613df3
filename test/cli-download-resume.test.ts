/**
 * `siphon download --resume` against a real server (docs/cli.md, "Asking a running Siphon"): a
 * download cut part way by a proxy keeps its temporary file, and `--resume` continues it with a byte
 * range to the file the API sends, byte for byte; after a publish it starts over and still ends
 * identical; a kept file already whole is only renamed; Ctrl-C keeps the part too; the resumed part
 * is not counted again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { nodeFlags } from '../src/cli/node-flags.js';
import { runCli, waitFor, type CliResult } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { siphonBin } from './helpers/paths.js';
import { downloadMark, downloadsBetween, startServer, type TestServer } from './helpers/server.js';
import { putBody, versionDb } from './helpers/upload.js';

let server: TestServer;
let key: string;
const results: CliResult[] = [];

before(async () => {
  server = await startServer();
  key = (await server.catalog.addUser('alice')).key;
  await server.catalog.addScraper('alice/big', versionDb(1, 300), { isPrivate: false, description: '' });
});
after(async () => {
  for (const r of results) assert.ok(!`${r.stdout}${r.stderr}`.includes(key), 'the key is never printed');
  await server.close();
});

async function download(args: string[], cwd: string, base = server.base): Promise<CliResult> {
  const r = await runCli(['download', 'alice/big', ...args], { cwd, env: { SIPHON_SERVER: base, SIPHON_KEY: key } });
  results.push(r);
  return r;
}

/** The SQLite file as the API sends it whole, and its ETag. */
async function fromApi(): Promise<{ file: Buffer; etag: string }> {
  const response = await fetch(`${server.base}/alice/big/data.sqlite`, { headers: { 'X-API-Key': key, 'Accept-Encoding': 'identity' } });
  assert.equal(response.status, 200);
  return { file: Buffer.from(await response.arrayBuffer()), etag: response.headers.get('etag')! };
}

/**
 * A proxy to the real server that passes on an answer's headers and its first `keep` bytes, then
 * holds the connection until `cut()` closes it: a download cut part way, at a byte the test
 * chooses, once the client has written what it got. It reads the rest of the server's answer itself
 * (`read` once it has), so the server's download is whole and recorded.
 */
async function cuttingProxy(keep: number): Promise<{ base: string; cut(): void; read: Promise<void>; close(): void }> {
  let upstreamRead: () => void;
  const read = new Promise<void>((resolve) => (upstreamRead = resolve));
  const proxy = createServer((request, response) => {
    const upstream = httpRequest(`${server.base}${request.url}`, { method: request.method, headers: request.headers });
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      let sent = 0;
      answer.on('data', (chunk: Buffer) => {
        const part = chunk.subarray(0, Math.max(0, keep - sent));
        sent += part.length;
        if (part.length > 0) response.write(part);
      });
      answer.on('end', () => upstreamRead());
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    cut: () => proxy.closeAllConnections(),
    read,
    close: () => proxy.close() && proxy.closeAllConnections(),
  };
}

/** The temporary files of resumable downloads in `cwd`. */
const keptParts = (cwd: string) => readdirSync(cwd).filter((name) => name.endsWith('.part'));

/** Cuts a `--resume` download of alice/big to big.sqlite once it has written `keep` bytes; answers the file it kept. */
async function cutDownload(cwd: string, keep: number): Promise<string> {
  const proxy = await cuttingProxy(keep);
  try {
    const cutting = download(['-o', 'big.sqlite', '--resume'], cwd, proxy.base);
    await waitFor(() => keptParts(cwd).some((name) => statSync(path.join(cwd, name)).size === keep), 30_000);
    proxy.cut();
    const cut = await cutting;
    await proxy.read; // the server's download is recorded before its end
    assert.equal(cut.code, 1);
    assert.match(cut.stderr, /^siphon: the answer was cut short \([^)]+\)[^;]*; [\d.]+ KB kept, which download --resume continues\n$/);
  } finally {
    proxy.close();
  }
  const parts = keptParts(cwd);
  assert.equal(parts.length, 1, parts.join());
  assert.ok(!readdirSync(cwd).includes('big.sqlite'), 'nothing under the final name');
  return parts[0]!;
}

test('--resume is for the SQLite file only', async () => {
  const cwd = tempDir();
  const r = await download(['--query', 'select 1', '--resume'], cwd);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^siphon: --resume continues the SQLite file only: a query's rows are made anew at each call\n/);
  assert.deepEqual(readdirSync(cwd), []);
});

test('a download cut part way keeps its part, named by its ETag; --resume continues it to the same bytes, counted once', async () => {
  const { file, etag } = await fromApi();
  assert.ok(file.length > 300_000);
  const from = await downloadMark(server, 'alice/big', key);
  const cwd = tempDir();
  const part = await cutDownload(cwd, 100_000);
  assert.equal(part, `.big.sqlite.resume-${Buffer.from(etag).toString('base64url')}.part`);
  const kept = readFileSync(path.join(cwd, part));
  assert.equal(kept.length, 100_000);
  assert.deepEqual(kept, file.subarray(0, kept.length));

  const resumed = await download(['-o', 'big.sqlite', '--resume'], cwd);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /^saved big\.sqlite \([\d.]+ KB, continued from [\d.]+ KB\)\n$/);
  assert.deepEqual(readdirSync(cwd), ['big.sqlite']);
  assert.deepEqual(readFileSync(path.join(cwd, 'big.sqlite')), file);
  // The cut download is counted (the proxy read it whole), its continuation not.
  const counted = await downloadsBetween(server, from, await downloadMark(server, 'alice/big', key));
  assert.deepEqual(
    counted.map((d) => [d.format, d.status, d.bytes]),
    [['sqlite', 200, file.length]],
  );
});

test('a part already whole is only renamed (the server answers 416, not counted)', async () => {
  const { file, etag } = await fromApi();
  const cwd = tempDir();
  const part = path.join(cwd, `.big.sqlite.resume-${Buffer.from(etag).toString('base64url')}.part`);
  const whole = path.join(tempDir(), 'whole.sqlite');
  const saved = await download(['-o', whole], cwd);
  assert.equal(saved.code, 0, saved.stderr);
  copyFileSync(whole, part);
  rmSync(whole);
  const from = await downloadMark(server, 'alice/big', key);
  const resumed = await download(['-o', 'big.sqlite', '--resume'], cwd);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /continued from/);
  assert.deepEqual(readdirSync(cwd), ['big.sqlite']);
  assert.deepEqual(readFileSync(path.join(cwd, 'big.sqlite')), file);
  assert.deepEqual(await downloadsBetween(server, from, await downloadMark(server, 'alice/big', key)), []);
});

test('Ctrl-C keeps the part too, and --resume completes it', async (t) => {
  const { file } = await fromApi();
  const proxy = await cuttingProxy(70_000);
  t.after(() => proxy.close());
  const cwd = tempDir();
  const child = spawn(process.execPath, [...nodeFlags, siphonBin, 'download', 'alice/big', '-o', 'big.sqlite', '--resume'], {
    cwd,
    env: { ...process.env, SIPHON_SERVER: proxy.base, SIPHON_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => child.on('close', resolve));
  await waitFor(() => keptParts(cwd).some((name) => statSync(path.join(cwd, name)).size === 70_000), 30_000);
  child.kill('SIGINT');
  assert.equal(await exited, 1);
  assert.equal(out, 'siphon: interrupted; 68.4 KB kept, which download --resume continues\n');
  assert.equal(keptParts(cwd).length, 1);
  const resumed = await download(['-o', 'big.sqlite', '--resume'], cwd);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /continued from 68\.4 KB\)\n$/);
  assert.deepEqual(readFileSync(path.join(cwd, 'big.sqlite')), file);
});

test('after a publish, --resume starts over from the new data and still ends identical to the API', async () => {
  const cwd = tempDir();
  const part = await cutDownload(cwd, 50_000);
  const published = await putBody(server.base, 'alice/big', readFileSync(versionDb(2, 350)), { 'x-api-key': key });
  assert.equal(published.status, 200, await published.text());
  const { file, etag } = await fromApi();
  const resumed = await download(['-o', 'big.sqlite', '--resume'], cwd);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /^saved big\.sqlite \([\d.]+ KB\)\n$/);
  assert.deepEqual(readdirSync(cwd), ['big.sqlite'], `the old part ${part} is removed`);
  assert.deepEqual(readFileSync(path.join(cwd, 'big.sqlite')), file);
  assert.equal(statSync(path.join(cwd, 'big.sqlite')).size, file.length);
  assert.ok(!part.includes(Buffer.from(etag).toString('base64url')), 'the new data has another tag');
});
