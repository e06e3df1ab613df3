/**
 * What every store means, whatever its engine (src/store/types.ts): the same tests, run against
 * SQLite (siphon.db in a data folder) and PostgreSQL (a database of its own, made for this file and
 * dropped after). Two stores opened on one database play two nodes, or a node and a command.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { openPgStore } from '../src/store/pg/store.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import type { DataVersion, Store } from '../src/store/types.js';
import { waitFor } from './helpers/cli.js';
import { aDownload, type DownloadFacts } from './helpers/download-record.js';
import { tempDir } from './helpers/fixture-db.js';
import { createTestDatabase, postgresSkip, type TestDatabase } from './helpers/pg-database.js';

interface Engine {
  name: string;
  /** Why its tests are skipped (its server does not answer), if they are. */
  skip?: string | false;
  /**
   * Opens `count` stores at once (1 by default) on a new database over a new data folder, the first
   * as `store`; `again` opens another on the same.
   */
  fresh(count?: number): Promise<{ store: Store; stores: Store[]; dataDir: string; again(): Promise<Store> }>;
}

const opened: Store[] = [];
const databases: TestDatabase[] = [];
after(async () => {
  for (const store of opened) await store.close();
  for (const db of databases) await db.drop();
});
const keep = <T extends Store>(store: T) => (opened.push(store), store);

const engines: Engine[] = [
  {
    name: 'SQLite',
    async fresh(count = 1) {
      const dataDir = tempDir();
      const open = async () => keep(openSqliteStore(path.join(dataDir, 'siphon.db')));
      const stores = await Promise.all(Array.from({ length: count }, open));
      return { store: stores[0]!, stores, dataDir, again: open };
    },
  },
  {
    name: 'PostgreSQL',
    skip: await postgresSkip(),
    async fresh(count = 1) {
      const dataDir = tempDir();
      const db = await createTestDatabase();
      databases.push(db);
      const open = async () => keep(await openPgStore(db.url, dataDir, 4));
      const stores = await Promise.all(Array.from({ length: count }, open));
      return { store: stores[0]!, stores, dataDir, again: open };
    },
  },
];

const version = (dataDir: string, name = '1-aa.sqlite'): DataVersion => ({
  version: 1,
  file: path.join(dataDir, 'scrapers', 'alice', 'plants', name),
  tables: [{ name: 't', columns: [{ name: 'x', type: 'integer' }], rows: 3 }],
  sizeBytes: 8192,
  updatedAt: '2026-03-04T05:06:07.089Z',
});

const download = (ids: Omit<DownloadFacts, 'at'>, at: string) => aDownload({ ...ids, at });

/** alice's scraper `plants`, and a key of `downloader` (alice herself, or another account) to download it with. */
async function scraperAndDownloader(store: Store, dataDir: string, downloader: string) {
  const alice = (await store.createAccount('alice'))!;
  const account = downloader === 'alice' ? alice : (await store.createAccount(downloader))!;
  await store.addKey(account.id, 'k', { prefix: 'sph_1', label: '', readOnly: false, origins: null });
  const key = (await store.findKey('k'))!;
  const scraper = await store.addScraper({ ownerId: alice.id, name: 'plants', description: '', isPrivate: false, data: version(dataDir) });
  return { scraper, account, key, ids: { scraperId: scraper.id, accountId: account.id, keyId: key.id } };
}

for (const engine of engines) {
  describe(engine.name, { skip: engine.skip }, () => {
    test('account names are unique and matched case-insensitively for A–Z only', async () => {
      const { store } = await engine.fresh();
      const alice = await store.createAccount('Alice', { passwordHash: 'hash', email: 'a@example.org' });
      assert.ok(alice);
      assert.equal(await store.createAccount('aLICE'), undefined, 'taken, whatever the case');
      assert.deepEqual(await store.findAccount('ALICE'), alice);
      assert.deepEqual(await store.findLogin('alice'), { account: alice, passwordHash: 'hash' });
      await store.setPasswordHash(alice.id, 'other');
      assert.equal((await store.findLogin('alice'))?.passwordHash, 'other');
      await store.createAccount('bob');
      await store.createAccount('Carol');
      assert.deepEqual(
        (await store.listAccounts()).map((a) => a.name),
        ['Alice', 'bob', 'Carol'],
        'by name, case aside',
      );
    });

    test('a name or search holding U+0000 (from a URL or a form) finds nothing; a download of such a query is recorded', async () => {
      const { store, dataDir } = await engine.fresh();
      const { scraper, ids } = await scraperAndDownloader(store, dataDir, 'bob');
      await store.setPasswordHash(ids.accountId, 'hash');
      // A refused query is a download too, its SQL kept as sent: one client's NUL must not fail the batch.
      await store.recordDownloads([
        { ...aDownload({ ...ids, at: new Date().toISOString() }), query: 'select 1\u0000', status: 400 },
        aDownload({ ...ids, at: new Date().toISOString() }),
      ]);
      assert.equal((await store.downloadStats(scraper.id)).total, 2);
      assert.equal(await store.findAccount('bob\u0000'), undefined);
      assert.equal(await store.findLogin('\u0000bob'), undefined);
      assert.ok(await store.findScraper('alice', 'plants'));
      assert.equal(await store.findScraper('alice', 'plants\u0000'), undefined);
      assert.deepEqual(await store.listScrapers({ owner: 'al\u0000ice' }), []);
      assert.deepEqual(await store.listScrapers({ search: '\u0000' }), []);
    });

    test('keys: added by hash, listed, found, revoked by hash or by id; origins kept', async () => {
      const { store } = await engine.fresh();
      const alice = (await store.createAccount('alice'))!;
      const origins = ['https://maps.example.org'];
      await store.addKey(alice.id, 'h1', { prefix: 'sph_111111', label: 'first', readOnly: false, origins: null });
      await store.addKey(alice.id, 'h2', { prefix: 'sph_222222', label: 'maps', readOnly: true, origins });
      const [first, second] = await store.listKeys(alice.id);
      assert.equal(first?.label, 'first');
      assert.deepEqual(second?.origins, origins);
      assert.equal(second?.readOnly, true);
      assert.match(first!.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(first?.lastUsedAt, null);
      assert.deepEqual(await store.findKey('h2'), { id: second!.id, account: alice, readOnly: true, revoked: false, origins });
      assert.equal(await store.findKey('nope'), undefined);
      assert.equal(await store.revokeKey('h1'), true);
      assert.equal(await store.revokeKey('nope'), false);
      assert.equal((await store.findKey('h1'))?.revoked, true);
      assert.equal(await store.revokeAccountKey(alice.id + 1, second!.id), false, "another account's key");
      assert.equal(await store.revokeAccountKey(alice.id, second!.id), true);
      assert.equal((await store.findKey('h2'))?.revoked, true);
      const listing = await store.listAccounts();
      assert.deepEqual(
        listing.map((a) => [a.keys, a.revokedKeys]),
        [[0, 2]],
      );
    });

    test('a key revoked or a scraper published through another store (another node) is seen within a second', async () => {
      const { store, dataDir, again } = await engine.fresh();
      const other = await again();
      const alice = (await store.createAccount('alice'))!;
      await store.addKey(alice.id, 'h', { prefix: 'sph_1', label: '', readOnly: false, origins: null });
      const scraper = await store.addScraper({
        ownerId: alice.id,
        name: 'plants',
        description: '',
        isPrivate: false,
        data: version(dataDir),
      });
      assert.equal((await store.findKey('h'))?.revoked, false, 'looked up, so cached');
      assert.equal((await store.findScraper('alice', 'plants'))?.data.version, 1);
      assert.equal(await other.revokeKey('h'), true);
      await other.replaceData(scraper.id, version(dataDir, '2-bb.sqlite'));
      await waitFor(async () => (await store.findKey('h'))?.revoked === true, 1000);
      await waitFor(async () => (await store.findScraper('alice', 'plants'))?.data.version === 2, 1000);
      assert.equal((await store.findScraper('ALICE', 'PLANTS'))?.data.file, version(dataDir, '2-bb.sqlite').file);
    });

    test('scrapers: found case-insensitively, replaced, changed, removed (and the name is free again)', async () => {
      const { store, dataDir } = await engine.fresh();
      const alice = (await store.createAccount('alice'))!;
      const added = await store.addScraper({
        ownerId: alice.id,
        name: 'Plants',
        description: 'd',
        isPrivate: false,
        data: version(dataDir),
      });
      assert.deepEqual(added.data, { ...version(dataDir), version: 1 });
      assert.deepEqual(await store.findScraper('ALICE', 'plants'), added);
      const swapped = await store.replaceData(added.id, version(dataDir, '2-bb.sqlite'));
      assert.deepEqual(swapped, { replaced: added.data, current: { ...version(dataDir, '2-bb.sqlite'), version: 2 } });
      assert.equal((await store.findScraper('alice', 'plants'))?.data.version, 2);
      assert.equal((await store.updateScraper(added.id, { isPrivate: true }))?.isPrivate, true);
      assert.equal((await store.findScraper('alice', 'plants'))?.description, 'd');
      assert.equal(await store.removeScraper(added.id), true);
      assert.equal(await store.removeScraper(added.id), false);
      assert.equal(await store.findScraper('alice', 'plants'), undefined);
      assert.equal(await store.replaceData(added.id, version(dataDir)), undefined);
      assert.equal(await store.updateScraper(added.id, { description: 'x' }), undefined);
      const again = await store.addScraper({
        ownerId: alice.id,
        name: 'plants',
        description: '',
        isPrivate: false,
        data: version(dataDir),
      });
      assert.notEqual(again.id, added.id);
      // A file outside the data folder is kept as it is.
      const outside = await store.replaceData(again.id, { ...version(dataDir), file: '/elsewhere/x.sqlite' });
      assert.equal(outside?.current.file, '/elsewhere/x.sqlite');
      assert.equal((await store.findScraper('alice', 'plants'))?.data.file, '/elsewhere/x.sqlite');
    });

    test('data versions: each publish kept with its id, time, size and rows; retired by count and by age, never the current; forgotten', async () => {
      const { store, dataDir } = await engine.fresh();
      const { scraper } = await scraperAndDownloader(store, dataDir, 'alice');
      assert.deepEqual(scraper.keep, { versions: null, days: null });
      const day = (d: number) => `2026-03-${String(d).padStart(2, '0')}T00:00:00.000Z`;
      for (const d of [2, 3, 4, 5]) await store.replaceData(scraper.id, { ...version(dataDir, `${d}-aa.sqlite`), updatedAt: day(d) });
      const kept = await store.listVersions(scraper.id);
      assert.deepEqual(
        kept.map((v) => v.version),
        [5, 4, 3, 2, 1],
      );
      assert.deepEqual(kept[0], { ...version(dataDir, '5-aa.sqlite'), version: 5, updatedAt: day(5) });
      assert.deepEqual(await store.findVersion(scraper.id, 2), { ...version(dataDir, '2-aa.sqlite'), version: 2, updatedAt: day(2) });
      assert.equal(await store.findVersion(scraper.id, 6), undefined);

      // The last 3 publishes: 1 and 2 go. Then by age, with 10 versions allowed: none published before the 4th.
      assert.equal(await store.retireVersions(scraper.id, { versions: 3, days: 0 }, day(20)), 2);
      assert.equal(await store.findVersion(scraper.id, 2), undefined);
      assert.equal(await store.retireVersions(scraper.id, { versions: 10, days: 16 }, day(20)), 1);
      // The current one stays, however old.
      assert.equal(await store.retireVersions(scraper.id, { versions: 1, days: 1 }, day(30)), 1);
      assert.deepEqual(
        (await store.listVersions(scraper.id)).map((v) => v.version),
        [5],
      );
      const retired = await store.retiredVersions(scraper.id);
      assert.deepEqual(
        retired.map((v) => [v.version, v.retiredAt]),
        [
          [1, day(20)],
          [2, day(20)],
          [3, day(20)],
          [4, day(30)],
        ],
      );
      assert.equal(retired[0]?.file, version(dataDir).file);
      await store.forgetVersion(scraper.id, 1);
      assert.deepEqual(
        (await store.retiredVersions(scraper.id)).map((v) => v.version),
        [2, 3, 4],
      );

      // The owner's choice is kept with the scraper, and seen by the next look-up.
      const changed = await store.updateScraper(scraper.id, { keep: { versions: 7 } });
      assert.deepEqual(changed?.keep, { versions: 7, days: null });
      assert.deepEqual((await store.findScraper('alice', 'plants'))?.keep, { versions: 7, days: null });
      await store.updateScraper(scraper.id, { keep: { days: 3 }, description: 'd' });
      assert.deepEqual((await store.findScraper('alice', 'plants'))?.keep, { versions: 7, days: 3 });
      await store.removeScraper(scraper.id);
      assert.equal(await store.retireVersions(scraper.id, { versions: 1, days: 0 }, day(30)), 0);
    });

    test('saved queries: saved by name in a scraper, replaced under the same name, listed (private ones when asked), bounded, removed', async () => {
      const { store, dataDir } = await engine.fresh();
      const { scraper } = await scraperAndDownloader(store, dataDir, 'alice');
      const query = (name: string, isPrivate = false) => ({
        name,
        title: `Title of ${name}`,
        description: 'what it shows',
        sql: 'select * from t where x = :x',
        isPrivate,
      });
      const saved = await store.saveQuery(scraper.id, query('by-x'), 3);
      assert.ok(saved);
      assert.deepEqual({ ...saved, updatedAt: '' }, { ...query('by-x'), scraperId: scraper.id, updatedAt: '' });
      assert.match(saved.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(await store.findQuery(scraper.id, 'by-x'), saved);
      assert.equal(await store.findQuery(scraper.id, 'BY-X'), undefined, 'names are compared as written');
      assert.ok(await store.saveQuery(scraper.id, query('hidden', true), 3));
      assert.ok(await store.saveQuery(scraper.id, query('all'), 3));
      // At the bound: a fourth name is refused, while saving one of the three again replaces it.
      assert.equal(await store.saveQuery(scraper.id, query('fourth'), 3), undefined);
      const replaced = await store.saveQuery(scraper.id, { ...query('by-x'), title: 'New title', sql: 'select 1' }, 3);
      assert.equal(replaced?.title, 'New title');
      assert.equal((await store.findQuery(scraper.id, 'by-x'))?.sql, 'select 1');
      assert.deepEqual(
        (await store.listQueries(scraper.id, false)).map((q) => q.name),
        ['all', 'by-x'],
      );
      assert.deepEqual(
        (await store.listQueries(scraper.id, true)).map((q) => [q.name, q.isPrivate]),
        [
          ['all', false],
          ['by-x', false],
          ['hidden', true],
        ],
      );
      assert.equal(await store.removeQuery(scraper.id, 'all'), true);
      assert.equal(await store.removeQuery(scraper.id, 'all'), false);
      assert.ok(await store.saveQuery(scraper.id, query('fourth'), 3), 'room again');
    });

    test('lists: public ones by downloads, owner and search (A–Z folded, wildcards literal), private ones when asked', async () => {
      const { store, dataDir } = await engine.fresh();
      const alice = (await store.createAccount('alice'))!;
      const bob = (await store.createAccount('Bob'))!;
      await store.addKey(bob.id, 'k', { prefix: 'sph_1', label: '', readOnly: false, origins: null });
      const key = (await store.findKey('k'))!;
      const add = (ownerId: number, name: string, description: string, isPrivate = false) =>
        store.addScraper({ ownerId, name, description, isPrivate, data: version(dataDir) });
      await add(alice.id, 'plants', 'Trees of PARIS');
      const birds = await add(bob.id, 'birds', '100% écoles_');
      await add(bob.id, 'secret', 'hidden', true);
      await store.recordDownloads([download({ scraperId: birds.id, accountId: bob.id, keyId: key.id }, new Date().toISOString())]);
      const names = async (options: Parameters<Store['listScrapers']>[0]) =>
        (await store.listScrapers(options)).map((l) => `${l.scraper.owner.name}/${l.scraper.name}:${l.downloads}`);
      assert.deepEqual(await names({}), ['Bob/birds:1', 'alice/plants:0']);
      assert.deepEqual(await names({ includePrivate: true, owner: 'bob' }), ['Bob/birds:1', 'Bob/secret:0']);
      assert.deepEqual(await names({ limit: 1 }), ['Bob/birds:1']);
      assert.deepEqual(await names({ search: 'paris' }), ['alice/plants:0']);
      assert.deepEqual(await names({ search: 'BOB' }), ['Bob/birds:1']);
      assert.deepEqual(await names({ search: '0%' }), ['Bob/birds:1'], '% is a plain character');
      assert.deepEqual(await names({ search: 's_' }), ['Bob/birds:1'], '_ is a plain character');
      assert.deepEqual(await names({ search: '%' }), ['Bob/birds:1']);
      assert.deepEqual(await names({ search: 'ÉCOLES' }), [], 'only A–Z are folded');
      assert.deepEqual(await names({ search: 'écoles' }), ['Bob/birds:1']);
    });

    test('downloads: counted per account and UTC day, last use kept, totals survive a prune', async () => {
      const { store, dataDir } = await engine.fresh();
      const { scraper, account: bob, key, ids } = await scraperAndDownloader(store, dataDir, 'bob');
      const now = new Date('2026-05-10T12:00:00.000Z');
      await store.recordDownloads([
        download(ids, '2026-05-08T23:59:59.999Z'),
        download(ids, '2026-05-09T00:00:00.000Z'),
        download(ids, '2026-05-10T08:00:00.000Z'),
      ]);
      await store.recordDownloads([{ ...download(ids, '2026-05-10T09:00:00.000Z'), query: null, rows: null }]);
      assert.deepEqual(await store.downloadStats(scraper.id), { total: 4, by: [{ owner: 'bob', count: 4 }] });
      assert.deepEqual(await store.downloadsPerDay(scraper.id, 3, now), [
        { day: '2026-05-08', count: 1 },
        { day: '2026-05-09', count: 1 },
        { day: '2026-05-10', count: 2 },
      ]);
      const mine = await store.accountDownloads(bob.id, 2, now);
      assert.deepEqual(mine, [
        {
          owner: 'alice',
          name: 'plants',
          removed: false,
          total: 3,
          perDay: [
            { day: '2026-05-09', count: 1 },
            { day: '2026-05-10', count: 2 },
          ],
        },
      ]);
      assert.equal((await store.listKeys(bob.id))[0]?.lastUsedAt, '2026-05-10T09:00:00.000Z');
      await store.recordKeyUse(key.id, '2026-05-01T00:00:00.000Z');
      assert.equal((await store.listKeys(bob.id))[0]?.lastUsedAt, '2026-05-10T09:00:00.000Z', 'an earlier use changes nothing');
      await store.recordKeyUse(key.id, '2026-05-11T00:00:00.000Z');
      assert.equal((await store.listKeys(bob.id))[0]?.lastUsedAt, '2026-05-11T00:00:00.000Z');
      assert.equal(await store.pruneDownloads('2026-05-10T00:00:00.000Z'), 2);
      assert.equal(await store.pruneDownloads('2026-05-10T00:00:00.000Z'), 0);
      assert.equal((await store.downloadStats(scraper.id)).total, 4, 'the totals keep counting pruned downloads');
      await store.removeScraper(scraper.id);
      assert.equal((await store.accountDownloads(bob.id, 2, now))[0]?.removed, true);
    });

    test("a spool's progress is kept with its downloads, in one step", async () => {
      const { store, dataDir } = await engine.fresh();
      const { scraper, ids } = await scraperAndDownloader(store, dataDir, 'alice');
      assert.equal(await store.spoolRecorded('node-a'), 0);
      await store.recordDownloads([download(ids, new Date().toISOString())], { spool: 'node-a', recorded: 1 });
      await store.recordDownloads([download(ids, new Date().toISOString())], { spool: 'node-a', recorded: 2 });
      assert.equal(await store.spoolRecorded('node-a'), 2);
      // A download for a scraper that does not exist breaks the step: neither it nor the progress is kept.
      await assert.rejects(
        store.recordDownloads([download(ids, new Date().toISOString()), download({ ...ids, scraperId: 999 }, new Date().toISOString())], {
          spool: 'node-a',
          recorded: 4,
        }),
      );
      assert.equal(await store.spoolRecorded('node-a'), 2);
      assert.equal((await store.downloadStats(scraper.id)).total, 2);
      await store.forgetSpool('node-a');
      assert.equal(await store.spoolRecorded('node-a'), 0);
    });

    test('sessions: found until they end, removed one by one, per account, or when expired', async () => {
      const { store } = await engine.fresh();
      const alice = (await store.createAccount('alice'))!;
      const expiresAt = '2030-01-01T00:00:00.000Z';
      await store.saveSession('s1', { accountId: alice.id, expiresAt });
      await store.saveSession('s2', { accountId: alice.id, expiresAt: '2026-01-01T00:00:00.000Z' });
      await store.saveSession('s3', { accountId: alice.id, expiresAt });
      const found = await store.findSession('s1', '2029-12-31T23:59:59.999Z');
      assert.deepEqual(found && { ...found, createdAt: 'x' }, { account: alice, createdAt: 'x', expiresAt });
      assert.equal(await store.findSession('s1', expiresAt), undefined, 'not at its end');
      assert.equal(await store.removeExpiredSessions('2027-01-01T00:00:00.000Z'), 1);
      await store.removeAccountSessions(alice.id, 's3');
      assert.equal(await store.findSession('s1', '2028-01-01T00:00:00.000Z'), undefined);
      assert.ok(await store.findSession('s3', '2028-01-01T00:00:00.000Z'));
      await store.removeSession('s3');
      assert.equal(await store.findSession('s3', '2028-01-01T00:00:00.000Z'), undefined);
    });

    test('three stores opening one new database at once migrate it once, and share one secret', async () => {
      const { stores } = await engine.fresh(3);
      const [, a, b] = stores as [Store, Store, Store];
      const secrets = await Promise.all(stores.map((s, i) => s.serverSecret('cookie', () => `secret-${i}`)));
      assert.equal(new Set(secrets).size, 1);
      assert.ok(await a.createAccount('alice'));
      assert.ok(await b.findAccount('ALICE'));
    });
  });
}

/** What an older store had before it kept data versions (SQLite migration 7). */
const dropKeptVersions =
  'drop table data_versions; alter table scrapers drop column keep_versions; alter table scrapers drop column keep_days;';

test("SQLite: a store from before data versions were kept has each scraper's current data as its one kept version", async () => {
  const dataDir = tempDir();
  const file = path.join(dataDir, 'siphon.db');
  const store = openSqliteStore(file);
  const alice = (await store.createAccount('alice'))!;
  const added = await store.addScraper({ ownerId: alice.id, name: 'plants', description: '', isPrivate: false, data: version(dataDir) });
  await store.replaceData(added.id, version(dataDir, '2-bb.sqlite'));
  await store.close();
  const db = new Database(file);
  db.exec(`${dropKeptVersions} drop table saved_queries;`);
  db.pragma('user_version = 6');
  db.close();
  const reopened = openSqliteStore(file);
  assert.deepEqual(await reopened.listVersions(added.id), [{ ...version(dataDir, '2-bb.sqlite'), version: 2 }]);
  assert.deepEqual((await reopened.findScraper('alice', 'plants'))?.keep, { versions: null, days: null });
  await reopened.close();
});

test('SQLite: data files stored absolute by an older version become relative, so the data folder can move', async () => {
  const dataDir = tempDir();
  const file = path.join(dataDir, 'siphon.db');
  const store = openSqliteStore(file);
  const alice = (await store.createAccount('alice'))!;
  await store.addScraper({ ownerId: alice.id, name: 'plants', description: '', isPrivate: false, data: version(dataDir) });
  await store.close();
  const db = new Database(file);
  assert.equal(db.prepare('select data_file from scrapers').pluck().get(), path.join('scrapers', 'alice', 'plants', '1-aa.sqlite'));
  // As the version before relative paths left it.
  db.prepare('update scrapers set data_file = ?').run(version(dataDir).file);
  db.exec('drop table download_spools; drop table saved_queries');
  db.exec(dropKeptVersions);
  db.pragma('user_version = 4');
  db.close();
  // Opened where it was written, it converts the paths; then the folder moves.
  await openSqliteStore(file).close();
  const migrated = new Database(file, { readonly: true });
  assert.equal(migrated.prepare('select data_file from scrapers').pluck().get(), path.join('scrapers', 'alice', 'plants', '1-aa.sqlite'));
  migrated.close();
  // Into a temporary folder of its own, which goes when the tests end, as the one it leaves would have.
  const moved = path.join(tempDir(), 'moved');
  renameSync(dataDir, moved);
  const reopened = openSqliteStore(path.join(moved, 'siphon.db'));
  assert.equal((await reopened.findScraper('alice', 'plants'))?.data.file, path.join(moved, 'scrapers', 'alice', 'plants', '1-aa.sqlite'));
  await reopened.close();
});

test('SQLite: a file from before saved queries is upgraded in place, its scrapers kept, and can save them', async () => {
  const dataDir = tempDir();
  const file = path.join(dataDir, 'siphon.db');
  const store = openSqliteStore(file);
  const alice = (await store.createAccount('alice'))!;
  await store.addScraper({ ownerId: alice.id, name: 'plants', description: 'kept', isPrivate: false, data: version(dataDir) });
  await store.close();
  const db = new Database(file);
  const latest = db.pragma('user_version', { simple: true }) as number;
  // As the version before saved queries left it.
  db.exec('drop table saved_queries');
  db.pragma('user_version = 7');
  db.close();
  const upgraded = keep(openSqliteStore(file));
  const plants = (await upgraded.findScraper('alice', 'plants'))!;
  assert.equal(plants.description, 'kept');
  const saved = await upgraded.saveQuery(plants.id, { name: 'q', title: 'Q', description: '', sql: 'select 1', isPrivate: false }, 10);
  assert.equal(saved?.name, 'q');
  const check = new Database(file, { readonly: true });
  assert.equal(check.pragma('user_version', { simple: true }), latest);
  check.close();
});
