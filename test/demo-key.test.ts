/**
 * The demo key `serve --demo` prints is read-only: through the real publish endpoint it is refused
 * (403) and the demo data stays as it was. On a fresh data folder, and on one seeded by an earlier
 * version, whose kept demo key was the demo account's first key and could publish.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDemoDatabase } from '../src/demo/demo-data.js';
import { Catalog } from '../src/scrapers/catalog.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import { runCliOk, startServe, waitFor, type ServeProcess } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { demoKey, publishRefusals } from './helpers/log-lines.js';
import { asBeforeKeyDetails } from './helpers/old-meta.js';
import { putBody, versionDb } from './helpers/upload.js';

const demo = 'demo/planning-applications';

async function serveDemo(dataDir: string): Promise<ServeProcess & { key: string }> {
  const server = await startServe(['--demo', '--port', '0'], { dataDir });
  // The demo lines are written just after the banner and may arrive in a later chunk.
  await waitFor(() => /curl '/.test(server.stdout()), 5000);
  return { ...server, key: demoKey(server.stdout()) };
}

async function stop(server: ServeProcess): Promise<void> {
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
}

/** What the demo data is now: the SHA-256 of the database served, its version and when it changed. */
async function demoData(base: string, key: string): Promise<{ sha256: string; updatedAt: string }> {
  const res = await fetch(`${base}/${demo}/data.sqlite`, { headers: { 'x-api-key': key } });
  assert.equal(res.status, 200);
  const info = (await (await fetch(`${base}/${demo}.json`)).json()) as { updated_at: string };
  return {
    sha256: createHash('sha256')
      .update(Buffer.from(await res.arrayBuffer()))
      .digest('hex'),
    updatedAt: info.updated_at,
  };
}

/** The publishes the server has refused so far, as it logged them. */
const refusals = (server: ServeProcess) => publishRefusals(server.stdout()).map((l) => l.code);

/** A publish of another database to the demo scraper, as curl would send it; the code comes from the server's log. */
async function publish(server: ServeProcess, key: string): Promise<{ status: number; error: string; code: string | undefined }> {
  const earlier = refusals(server).length;
  const res = await putBody(server.base, demo, readFileSync(versionDb(2)), { 'x-api-key': key, 'content-type': 'application/vnd.sqlite3' });
  const { error } = (await res.json()) as { error: string };
  await waitFor(() => refusals(server).length > earlier, 5000);
  return { status: res.status, error, code: refusals(server)[earlier] };
}

test('on a fresh data folder, the demo key printed at start cannot publish, and the demo data is unchanged', async () => {
  const server = await serveDemo(tempDir());
  try {
    const before = await demoData(server.base, server.key);
    const refused = await publish(server, server.key);
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'SIPHON_ERR_KEY_READ_ONLY');
    assert.match(refused.error, /read-only/);
    assert.deepEqual(await demoData(server.base, server.key), before);
    assert.doesNotMatch(server.stdout(), /earlier version/);
  } finally {
    await stop(server);
  }
});

test('a data folder seeded by an earlier version: its demo key, which could publish, is revoked and replaced by a read-only one', async () => {
  // What an earlier version left: the demo account's first key, writable, kept as the demo key;
  // and a metadata file of the schema before key details.
  const dataDir = tempDir();
  const store = openSqliteStore(path.join(dataDir, 'siphon.db'));
  const catalog = new Catalog(store, dataDir);
  const { key: oldKey } = await catalog.addUser('demo');
  const source = path.join(tempDir(), 'demo.sqlite');
  writeDemoDatabase(source);
  await catalog.addScraper(demo, source, { isPrivate: false, description: 'demo' });
  await store.close();
  writeFileSync(path.join(dataDir, 'demo-key.txt'), `${oldKey}\n`);
  asBeforeKeyDetails(dataDir);

  const server = await serveDemo(dataDir);
  let newKey: string;
  try {
    newKey = server.key;
    assert.notEqual(newKey, oldKey);
    assert.match(server.stdout(), /The demo key kept by an earlier version could publish data: it is revoked/);
    const before = await demoData(server.base, newKey);

    const withOld = await publish(server, oldKey);
    assert.equal(withOld.status, 401);
    assert.equal(withOld.code, 'SIPHON_ERR_KEY_REVOKED');
    const withNew = await publish(server, newKey);
    assert.equal(withNew.status, 403);
    assert.equal(withNew.code, 'SIPHON_ERR_KEY_READ_ONLY');
    assert.deepEqual(await demoData(server.base, newKey), before);

    const query = await fetch(`${server.base}/${demo}/data.json?query=select+1`, { headers: { 'x-api-key': oldKey } });
    assert.equal(query.status, 401, 'the old key cannot query either');
  } finally {
    await stop(server);
  }

  // The replacement is kept: the next start prints it again, with no notice.
  const again = await serveDemo(dataDir);
  try {
    assert.equal(again.key, newKey);
    assert.doesNotMatch(again.stdout(), /earlier version/);
  } finally {
    await stop(again);
  }
  const listed = (await runCliOk(['key', 'list', 'demo'], { dataDir })).trim().split('\n').slice(1);
  assert.equal(listed.length, 2);
  assert.match(listed[0]!, /^\(unknown\)\s+-\s+no\s+any\s+\S+\s+never\s+\d{4}-\d\d-\d\dT/, 'the old key: made before prefixes, revoked');
  assert.match(listed[1]!, new RegExp(`^${newKey.slice(0, 10)}…\\s+demo key, printed at every start\\s+yes\\s+any\\s+\\S+\\s+\\S+\\s+no$`));
});
