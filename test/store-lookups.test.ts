/**
 * Key and scraper lookups are kept in memory, yet see every change at once: one made through the
 * same store, or committed by another connection to the same file (the CLI's, in another process).
 * Here two stores on one file play the server and the CLI.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { hashKey } from '../src/keys.js';
import { Catalog } from '../src/scrapers/catalog.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import { aDownload } from './helpers/download-record.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';

const dir = tempDir();
const file = path.join(dir, 'siphon.db');
const server = openSqliteStore(file);
const cli = openSqliteStore(file);
after(async () => {
  await server.close();
  await cli.close();
});
const data = (rows: number) =>
  makeDb(
    tempDir(),
    'd.sqlite',
    `create table t (x); with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows}) insert into t select i from n;`,
  );

test('a key looked up again is the kept one, until a change: revoked from another connection, it is found revoked', async () => {
  const cliCatalog = new Catalog(cli, dir);
  const hash = hashKey((await cliCatalog.addUser('alice')).key);
  const scraper = await cliCatalog.addScraper('alice/counts', data(1), { isPrivate: false, description: '' });
  const first = await server.findKey(hash);
  assert.equal(first?.revoked, false);
  assert.equal(await server.findKey(hash), first, 'the same object: kept in memory');

  // The server's own download writes change no key, and keep what is kept.
  await server.recordDownloads([
    aDownload({ scraperId: scraper.id, accountId: first.account.id, keyId: first.id, at: new Date().toISOString() }),
  ]);
  assert.equal(await server.findKey(hash), first);

  assert.equal(await cli.revokeKey(hash), true);
  // Another connection's commits are looked for once per turn of the event loop (src/store/sqlite/connection.ts).
  await new Promise(setImmediate);
  assert.equal((await server.findKey(hash))?.revoked, true);
});

test('a key revoked through the same store is found revoked', async () => {
  const hash = hashKey(await new Catalog(server, dir).createKey('alice'));
  assert.equal((await server.findKey(hash))?.revoked, false);
  await server.revokeKey(hash);
  assert.equal((await server.findKey(hash))?.revoked, true);
});

test('a scraper published from another connection is found with its new data; one added after a miss is found', async () => {
  const cliCatalog = new Catalog(cli, dir);
  assert.equal(await server.findScraper('alice', 'plants'), undefined);
  await cliCatalog.addScraper('alice/plants', data(1), { isPrivate: false, description: '' });
  const first = await server.findScraper('alice', 'plants');
  assert.equal(first?.data.version, 1);
  assert.equal(await server.findScraper('ALICE', 'Plants'), first, 'names match case-insensitively, kept or not');
  assert.equal(await server.findScraper('alice', 'plantS'), first);

  await cliCatalog.publish('alice/plants', data(5));
  const after = await server.findScraper('alice', 'plants');
  assert.equal(after?.data.version, 2);
  assert.deepEqual(after.data.tables, [{ name: 't', columns: [{ name: 'x', type: '' }], rows: 5 }]);
});
