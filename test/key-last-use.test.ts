/**
 * A key's last use is kept by the store as downloads are recorded: the latest of each key's
 * downloads, whatever order a batch holds them in, never moved back by an older one.
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
const store = openSqliteStore(path.join(dir, 'siphon.db'));
after(() => store.close());

test('each key gets its latest download, in batches in any order; an older one never moves it back', async () => {
  const catalog = new Catalog(store, dir);
  const { account, key: first } = await catalog.addUser('alice');
  const second = await catalog.createKey('alice');
  await catalog.createKey('alice', { label: 'unused' });
  const scraper = await catalog.addScraper('alice/s', makeDb(tempDir(), 's.sqlite', 'create table t (x);'), {
    isPrivate: false,
    description: '',
  });
  const ids = await Promise.all([first, second].map(async (k) => (await store.findKey(hashKey(k)))!.id));
  const download = (keyId: number, at: string) => aDownload({ scraperId: scraper.id, accountId: account.id, keyId, at });
  const lastUse = async () => (await store.listKeys(account.id)).map((k) => k.lastUsedAt);

  await store.recordDownloads([
    download(ids[0]!, '2026-03-02T10:00:00.000Z'),
    download(ids[1]!, '2026-03-01T09:00:00.000Z'),
    download(ids[0]!, '2026-03-01T10:00:00.000Z'),
    download(ids[0]!, '2026-03-02T09:59:59.999Z'),
  ]);
  assert.deepEqual(await lastUse(), ['2026-03-02T10:00:00.000Z', '2026-03-01T09:00:00.000Z', null]);

  // A batch written late (after a full disk, say) with older downloads of the first key.
  await store.recordDownloads([download(ids[0]!, '2026-02-01T00:00:00.000Z'), download(ids[1]!, '2026-03-03T00:00:00.000Z')]);
  await store.recordKeyUse(ids[0]!, '2026-01-01T00:00:00.000Z');
  assert.deepEqual(await lastUse(), ['2026-03-02T10:00:00.000Z', '2026-03-03T00:00:00.000Z', null]);
  await store.recordKeyUse(ids[0]!, '2026-04-01T00:00:00.000Z');
  assert.deepEqual(await lastUse(), ['2026-04-01T00:00:00.000Z', '2026-03-03T00:00:00.000Z', null]);
});
