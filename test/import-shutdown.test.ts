import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { addUser, listFiles, runCliOk, startServe, waitFor, withTimeout, type ServeProcess } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { importProcesses, isRunning } from './helpers/processes.js';
import { endlessImportDb, publishTempFiles, publishUrl, putBody, readVersion, versionDb } from './helpers/upload.js';

/** A data folder with alice and her scraper alice/plants (version 1), set up through the real CLI. */
async function setUp(): Promise<{ dataDir: string; key: string }> {
  const dataDir = tempDir();
  const key = await addUser(dataDir, 'alice');
  await runCliOk(['scraper', 'add', 'alice/plants', '--db', versionDb(1)], { dataDir });
  return { dataDir, key };
}

/** Publishes a database whose import never ends, and resolves once its import process runs. */
async function startEndlessPublish(
  serve: ServeProcess,
  key: string,
): Promise<{ answer: Promise<{ status: number; body: string } | string>; importPid: number }> {
  const answer = putBody(serve.base, 'alice/plants', readFileSync(endlessImportDb()), { 'x-api-key': key }).then(
    async (res) => ({ status: res.status, body: await res.text() }),
    (err: unknown) => `no answer: ${String(err)}`,
  );
  await waitFor(() => importProcesses(serve.child.pid).length === 1, 10_000);
  return { answer, importPid: importProcesses(serve.child.pid)[0]! };
}

const versionFiles = (dataDir: string) => listFiles(path.join(dataDir, 'scrapers'));

test(
  'SIGTERM during an import that never ends: the publish is answered 503 and serve exits 0 within 10 s, leaving nothing behind',
  { timeout: 60_000 },
  async () => {
    const { dataDir, key } = await setUp();
    const before = versionFiles(dataDir);
    const serve = await startServe(['--port', '0'], { dataDir });
    try {
      const { answer, importPid } = await startEndlessPublish(serve, key);
      serve.child.kill('SIGTERM');
      assert.deepEqual(await withTimeout(serve.exited, 10_000, 'stopping'), { code: 0, signal: null }, serve.stderr());
      assert.deepEqual(await answer, { status: 503, body: '{"error":"The service is shutting down or not ready."}' });
      assert.ok(!isRunning(importPid), 'the import process was stopped');
      assert.deepEqual(publishTempFiles(dataDir), []);
      assert.deepEqual(versionFiles(dataDir), before);
    } finally {
      serve.child.kill('SIGKILL');
    }
  },
);

test(
  'SIGTERM while a publish is still uploading: the publish is answered 503 and serve exits 0 within 10 s, leaving nothing behind',
  { timeout: 60_000 },
  async () => {
    const { dataDir, key } = await setUp();
    const serve = await startServe(['--port', '0'], { dataDir });
    try {
      // A slow client: part of the body, then nothing for now.
      const req = http.request(publishUrl(serve.base, 'alice/plants'), {
        method: 'PUT',
        headers: { 'x-api-key': key, 'transfer-encoding': 'chunked' },
      });
      const answer = new Promise<{ status: number; body: string } | string>((resolve) => {
        req.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (text: string) => {
            body += text;
          });
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', (err) => resolve(`no answer: ${String(err)}`));
      });
      req.write(readFileSync(versionDb(2)).subarray(0, 4096));
      await waitFor(() => publishTempFiles(dataDir).length === 1, 10_000);
      serve.child.kill('SIGTERM');
      assert.deepEqual(await withTimeout(serve.exited, 10_000, 'stopping'), { code: 0, signal: null }, serve.stderr());
      assert.deepEqual(await answer, { status: 503, body: '{"error":"The service is shutting down or not ready."}' });
      req.destroy();
      assert.deepEqual(publishTempFiles(dataDir), []);
    } finally {
      serve.child.kill('SIGKILL');
    }
  },
);

test(
  'serve killed outright mid-import: the import process stops by itself at its time limit, and the next start removes its files',
  { timeout: 60_000 },
  async () => {
    const { dataDir, key } = await setUp();
    const before = versionFiles(dataDir);
    const serve = await startServe(['--port', '0', '--import-timeout', '1'], { dataDir });
    const { answer, importPid } = await startEndlessPublish(serve, key);
    serve.child.kill('SIGKILL');
    await serve.exited;
    await answer;
    // Nobody is left to kill it: its CPU time limit (the import time limit and a second) ends it.
    await waitFor(() => !isRunning(importPid), 10_000);
    assert.ok(
      publishTempFiles(dataDir).some((f) => f.startsWith('.upload-')),
      'the upload was left behind',
    );

    const again = await startServe(['--port', '0'], { dataDir });
    try {
      assert.deepEqual(publishTempFiles(dataDir), []);
      assert.deepEqual(versionFiles(dataDir), before);
      assert.deepEqual(await readVersion(again.base, 'alice/plants', key), { n: 100, v: 1 });
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  },
);

test('start-up removes only the temporary files of publishes whose process is gone', { timeout: 30_000 }, async () => {
  const { dataDir } = await setUp();
  const scraperDir = path.join(dataDir, 'scrapers', 'alice', 'plants');
  // A process that has exited: its pid stands for a server or CLI that crashed mid-publish.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const crashed = [
    `.upload-${gone}-0123456789abcdef.sqlite`,
    `.upload-${gone}-0123456789abcdef.sqlite-wal`,
    `scrapers/alice/plants/.incoming-${gone}-1700000000000-89abcdef.sqlite`,
    `scrapers/alice/plants/.incoming-${gone}-1700000000000-89abcdef.sqlite-journal`,
  ];
  // This test's own process is running: it stands for a CLI publishing while the server starts.
  const running = [
    `.upload-${process.pid}-fedcba9876543210.sqlite`,
    `scrapers/alice/plants/.incoming-${process.pid}-1700000000001-01234567.sqlite`,
  ];
  const others = ['notes.txt', 'scrapers/alice/plants/.incoming-notes.sqlite', 'scrapers/alice/plants/1700000000000-01234567.sqlite'];
  mkdirSync(scraperDir, { recursive: true });
  for (const f of [...crashed, ...running, ...others]) writeFileSync(path.join(dataDir, f), 'x');
  const files = () => listFiles(dataDir).filter((f) => !f.startsWith('siphon.db'));
  const before = files();

  const serve = await startServe(['--port', '0'], { dataDir });
  serve.child.kill('SIGTERM');
  await serve.exited;
  assert.deepEqual(
    files(),
    before.filter((f) => !crashed.includes(f)),
  );
});
