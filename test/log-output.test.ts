/**
 * The log of a real `serve` process on stdout: only log records, the start-up ones naming the
 * pages, the API and the demo; written without the requests waiting for stdout (a reader that
 * stops reading does not stop the service); and flushed whole when it stops, not a line lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { addUser, runCliOk, startServe, waitFor } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { demoRecord, logRecords, requestRecords } from './helpers/log-lines.js';
import { repoRoot } from './helpers/paths.js';
import { dataUrl } from './helpers/server.js';

test('stdout not a terminal: it holds log records only; the start-up records name the pages, the API, the metrics and the demo', async () => {
  const dataDir = tempDir();
  const server = await startServe(['--demo', '--port', '0', '--metrics-port', '0'], { dataDir });
  try {
    const demo = demoRecord(server.stdout());
    const banner = logRecords(server.stdout()).find((r) => String(r.msg).startsWith('Siphon is serving'))!;
    assert.equal(banner.url, server.base);
    assert.equal(banner.home, `${server.base}/`);
    assert.equal(banner.docs, `${server.base}/docs`);
    assert.equal(banner.api, `${server.base}/{owner}/{scraper}/data.{format}?key={key}&query={sql}`);
    assert.match(String(banner.metrics), /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.notEqual(new URL(String(banner.metrics)).port, String(server.port));
    assert.equal((await fetch(String(banner.metrics))).status, 200);
    assert.equal(demo.page, `${server.base}/demo/planning-applications`);
    for (const page of [banner.home, banner.docs, demo.page]) assert.equal((await fetch(String(page))).status, 200, String(page));
    assert.equal(
      (await fetch(`${server.base}/demo/planning-applications/data.json?query=select+1`, { headers: { 'x-api-key': demo.demoKey } }))
        .status,
      200,
    );
  } finally {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  }
  const lines = server.stdout().trimEnd().split('\n');
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
  assert.equal(JSON.parse(lines.at(-1)!).msg, 'stopped');
  assert.equal(server.stderr(), '');
});

test('--log-format pretty, stdout not a terminal: readable lines, the start-up for a person', async () => {
  const server = await startServe(['--demo', '--port', '0', '--log-format', 'pretty'], { dataDir: tempDir() });
  try {
    const res = await fetch(`${server.base}/docs`);
    assert.equal(res.status, 200);
    const id = res.headers.get('x-request-id')!;
    const pattern = new RegExp(`^\\S+Z INFO  request reqId=${id} method=GET url=/docs route=/docs status=200 .*durationMs=`, 'm');
    await waitFor(() => pattern.test(server.stdout()), 5000);
    assert.match(server.stdout(), /^ {2}Demo key {4}sph_\S+ \(read-only/m);
    assert.match(server.stdout(), /^ {2}curl 'http:\/\/\S+\/demo\/planning-applications\/data\.json\?key=sph_\S+'$/m);
    assert.equal(logRecords(server.stdout()).length, 0, 'no JSON');
  } finally {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  }
});

test('a stdout nobody reads holds no request up, and every line is written when the service stops', async () => {
  const dataDir = tempDir();
  const key = await addUser(dataDir, 'alice');
  await runCliOk(
    ['scraper', 'add', 'alice/small', '--db', makeDb(tempDir(), 'small.sqlite', "create table t (x text); insert into t values ('a');")],
    { dataDir },
  );
  // Room for the batches below: one key's queries, all at once.
  const server = await startServe(['--port', '0', '--rate-limit', '0', '--key-queue', '20'], { dataDir });
  const ids: string[] = [];
  try {
    // The reader stops: the pipe fills (64 KB), and what is logged after that waits in the service.
    server.child.stdout!.pause();
    const seen = server.stdout().length;
    const long = 'x'.repeat(300); // each line holds a few hundred bytes of its URL: 600 of them, far more than a pipe holds
    for (let i = 0; i < 600; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await fetch(dataUrl(server.base, 'alice/small', 'json', { key, query: `select x from t where x <> '${long}'` }));
          assert.equal(res.status, 200);
          await res.arrayBuffer();
          return res.headers.get('x-request-id')!;
        }),
      );
      ids.push(...batch);
    }
    assert.equal(server.stdout().length, seen, 'nothing was read meanwhile: the lines waited in the service');
  } finally {
    server.child.kill('SIGTERM');
    server.child.stdout!.resume();
  }
  assert.deepEqual(await server.exited, { code: 0, signal: null });
  const logged = new Set(requestRecords(server.stdout()).map((r) => r.reqId));
  assert.equal(ids.filter((id) => !logged.has(id)).length, 0, 'a request line was lost');
  assert.equal(logRecords(server.stdout()).at(-1)!.msg, 'stopped');
});

test('a record logged while a write to stdout is held up is written once it can be, with nothing logged after it', async (t) => {
  // A process whose log's first write (larger than a pipe holds) cannot finish until we read, and
  // which logs one more record meanwhile, then nothing: that record must still reach stdout.
  const logger = pathToFileURL(path.join(repoRoot, 'dist', 'src', 'log', 'logger.js')).href;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { createLog } = await import(${JSON.stringify(logger)});
      const { logger } = createLog({ level: 'info', format: 'json' });
      logger.info({ big: 'x'.repeat(256 * 1024) }, 'first');
      // The scenario's own times: 'second' comes while that write waits, then several flush ticks
      // (every 100 ms) find the write still under way; only then does the process say so on stderr.
      setTimeout(() => {
        logger.info('second');
        setTimeout(() => process.stderr.write('held\\n'), 500);
      }, 150);
      setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.after(() => child.kill('SIGKILL'));
  child.stdout.pause();
  // Not read until the process has logged 'second' and let the flush ticks pass, however long it takes to get there.
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  await waitFor(() => stderr.includes('held'), 30_000);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stdout.resume();
  await waitFor(() => out.includes('"msg":"second"'), 10_000).catch(() =>
    assert.fail(`only ${out.split('\n').length - 1} records reached stdout`),
  );
});
