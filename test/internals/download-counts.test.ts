import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import path from 'node:path';
import { test } from 'node:test';
import { Catalog } from '../../src/scrapers/catalog.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Account, DownloadRecord, Scraper } from '../../src/store/types.js';
import { aDownload } from '../helpers/download-record.js';
import { makeDb, tempDir } from '../helpers/fixture-db.js';

test('a batch of downloads over several scrapers, accounts, keys and UTC days adds up to what count(*) says, batch after batch', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'siphon.db');
  const store = openSqliteStore(file);
  const catalog = new Catalog(store, dir);
  const accounts: Account[] = [];
  for (const name of ['alice', 'bob', 'carol']) accounts.push((await catalog.addUser(name)).account);
  const source = makeDb(tempDir(), 'd.sqlite', 'create table t (x)');
  const scrapers: Scraper[] = [];
  for (const name of ['alice/a', 'alice/b', 'bob/c'])
    scrapers.push(await catalog.addScraper(name, source, { isPrivate: false, description: '' }));
  const db = new Database(file, { readonly: true });
  const keyIds = db.prepare('select id from api_keys order by id').pluck().all() as number[];
  let seed = 3;
  const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  const days = ['2026-11-24T23:59:59.999Z', '2026-11-25T00:00:00.000Z', '2026-11-25T12:00:00.000Z', '2026-12-01T08:30:00.000Z'];
  for (let batch = 0; batch < 3; batch++) {
    const records: DownloadRecord[] = Array.from({ length: 200 }, () => {
      const who = next(accounts.length);
      return aDownload({
        scraperId: scrapers[next(scrapers.length)]!.id,
        accountId: accounts[who]!.id,
        keyId: keyIds[who]!,
        at: days[next(days.length)]!,
      });
    });
    await store.recordDownloads(records);
  }
  // Each kept count, and what SQL counts over the downloads themselves.
  const agree: [kept: string, counted: string][] = [
    [
      'select scraper_id, account_id, count from download_totals order by 1, 2',
      'select scraper_id, account_id, count(*) as count from downloads group by 1, 2 order by 1, 2',
    ],
    [
      'select scraper_id, day, count from download_days order by 1, 2',
      'select scraper_id, substr(at, 1, 10) as day, count(*) as count from downloads group by 1, 2 order by 1, 2',
    ],
    [
      'select account_id, scraper_id, day, count from download_account_days order by 1, 2, 3',
      'select account_id, scraper_id, substr(at, 1, 10) as day, count(*) as count from downloads group by 1, 2, 3 order by 1, 2, 3',
    ],
    [
      'select id, last_used_at from api_keys order by id',
      'select key_id as id, max(at) as last_used_at from downloads group by key_id order by key_id',
    ],
  ];
  for (const [kept, counted] of agree) assert.deepEqual(db.prepare(kept).all(), db.prepare(counted).all(), kept);
  assert.equal(db.prepare('select count(*) from downloads').pluck().get(), 600);
  db.close();
  await store.close();
});
