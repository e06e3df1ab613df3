/**
 * PostgreSQL out of reach under a running node: the node answers 503 (the service's condition, not
 * the client's fault) rather than 500, and serves again by itself once the database is back. The
 * database is reached through a TCP relay of this test's, closed and reopened to cut it off.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { runCliOk, startServe, waitFor, type ServeProcess } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg-database.js';
import { dataUrl } from './helpers/server.js';
import { versionDb } from './helpers/upload.js';

const dataDir = tempDir();
let database: TestDatabase;
let node: ServeProcess;
let relay: net.Server | undefined;
const relayed = new Set<net.Socket>();
let relayPort = 0;

/** Opens the relay to PostgreSQL on `relayPort` (a free one the first time). */
async function openRelay(): Promise<void> {
  const target = new URL(database.url);
  relay = net.createServer((client) => {
    const server = net.connect(Number(target.port || 5432), target.hostname);
    for (const [a, b] of [
      [client, server],
      [server, client],
    ] as const) {
      relayed.add(a);
      a.on('error', () => b.destroy()).on('close', () => {
        b.destroy();
        relayed.delete(a);
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => relay!.listen(relayPort, '127.0.0.1', resolve));
  relayPort = (relay.address() as net.AddressInfo).port;
}

/** Cuts every connection through the relay and refuses new ones. */
async function closeRelay(): Promise<void> {
  const closed = new Promise<void>((resolve) => relay!.close(() => resolve()));
  for (const socket of relayed) socket.destroy();
  await closed;
}

let key: string;
before(async () => {
  database = await createTestDatabase();
  key = (await runCliOk(['user', 'add', 'alice', '--database-url', database.url], { dataDir })).trim();
  await runCliOk(['scraper', 'add', 'alice/plants', '--db', versionDb(1), '--database-url', database.url], { dataDir });
  await openRelay();
  const url = new URL(database.url);
  url.port = String(relayPort);
  node = await startServe(['--port', '0', '--database-url', url.href], { dataDir });
});

after(async () => {
  node.child.kill('SIGKILL');
  await node.exited;
  if (relay?.listening) await closeRelay();
  await database.drop();
});

const status = async () => {
  const res = await fetch(dataUrl(node.base, 'alice/plants', 'json', { key, query: 'select count(*) as n from t' }));
  return { status: res.status, code: res.headers.get('siphon-error-code') };
};

test('with PostgreSQL cut off a data call is answered 503, and served again once it is back', async () => {
  assert.deepEqual(await status(), { status: 200, code: null });
  await closeRelay();
  // The node hears its listening connection go, stops caching, and every look-up finds no database.
  await waitFor(async () => (await status()).status === 503, 10_000);
  assert.deepEqual(await status(), { status: 503, code: 'SIPHON_ERR_UNAVAILABLE' });
  const page = await fetch(`${node.base}/alice/plants.json`);
  assert.equal(page.status, 503);
  await openRelay();
  await waitFor(async () => (await status()).status === 200, 10_000);
});
