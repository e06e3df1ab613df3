/**
 * Keys are stored only as their hashes: after keys of every kind were made, used, recorded as
 * downloads and one revoked, no file of the data folder (the metadata database, its WAL, the
 * scrapers' data) holds any of them, in any form a reader could search for.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { hashKey } from '../src/keys.js';
import { listFiles } from './helpers/cli.js';
import { addTinyScraper, dataUrl, startServer, writtenDownloads, type TestServer } from './helpers/server.js';

let server: TestServer;
let closed = false;
const keys: string[] = [];

before(async () => {
  server = await startServer();
  const { key } = await server.catalog.addUser('alice');
  keys.push(key);
  keys.push(await server.catalog.createKey('alice', { readOnly: true, label: 'reports' }));
  keys.push(await server.catalog.createKey('alice', { origins: ['https://maps.example.org'] }));
  await addTinyScraper(server, 'alice/tiny');
  for (const k of keys) {
    const res = await fetch(dataUrl(server.base, 'alice/tiny', 'json', { key: k, query: 'select x from n' }), {
      headers: { origin: 'https://maps.example.org' },
    });
    assert.equal(res.status, 200, await res.text());
  }
  assert.equal((await writtenDownloads(server)).length, keys.length);
  assert.equal(await server.catalog.revokeKey(keys[1]!), true);
});

after(async () => {
  if (!closed) await server.close();
});

test('no file of the data folder holds a key, whole or past its prefix, while the server runs and after it stops', async () => {
  const scan = () => {
    const files = listFiles(server.dataDir);
    assert.ok(
      files.some((f) => f.startsWith('siphon.db')),
      `the metadata database is among ${files.join(', ')}`,
    );
    for (const file of files) {
      const bytes = readFileSync(path.join(server.dataDir, file));
      for (const key of keys) {
        // The stored prefix (`key list`) is the first 10 characters; nothing beyond them may be found.
        for (const text of [key, key.slice(4), key.slice(10)]) {
          assert.equal(bytes.indexOf(text, 0, 'utf8'), -1, `${file} holds a key (or most of one)`);
          assert.equal(bytes.indexOf(Buffer.from(text).toString('hex'), 0, 'latin1'), -1, `${file} holds a key in hex`);
        }
      }
    }
  };
  scan();
  // What is stored is found by the same scan: each key's hash is in the folder's files.
  const all = Buffer.concat(listFiles(server.dataDir).map((f) => readFileSync(path.join(server.dataDir, f))));
  for (const key of keys) assert.notEqual(all.indexOf(hashKey(key), 0, 'utf8'), -1, 'the hash is stored');
  await server.close();
  closed = true;
  scan();
});
