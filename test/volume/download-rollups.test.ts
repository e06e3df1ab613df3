/**
 * Download counts are kept as downloads are recorded, so a page costs the same with 10 downloads
 * or a million. An old metadata file (no counts, schema version 0) with a million downloads
 * written straight into it is migrated when the server opens it; then the pages, scraper.json and
 * the home page must show what SQL counts in the downloads table itself, and keep doing so as
 * more downloads come in through the API.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Catalog } from '../../src/scrapers/catalog.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { openMeta, runCliOk, waitFor } from '../helpers/cli.js';
import { makeDb, tempDir } from '../helpers/fixture-db.js';
import { asBeforeKeyDetails } from '../helpers/old-meta.js';
import { dataUrl, startServer, type TestServer } from '../helpers/server.js';

const dataDir = tempDir();
const file = path.join(dataDir, 'siphon.db');
const keys: Record<string, string> = {};
let server: TestServer;

/** Who downloaded each scraper and how often, per UTC day, and in all: counted over the downloads table itself. */
function countedWithSql(db: Database.Database) {
  return {
    totals: db
      .prepare(
        `select s.name as scraper, a.name as owner, count(*) as count from downloads d
      join scrapers s on s.id = d.scraper_id join accounts a on a.id = d.account_id
      group by d.scraper_id, d.account_id order by scraper, owner`,
      )
      .all() as { scraper: string; owner: string; count: number }[],
    days: db
      .prepare(
        `select s.name as scraper, substr(d.at, 1, 10) as day, count(*) as count from downloads d
      join scrapers s on s.id = d.scraper_id group by d.scraper_id, day order by scraper, day`,
      )
      .all() as { scraper: string; day: string; count: number }[],
    // What /account shows: an account's own downloads per scraper and day.
    accountDays: db
      .prepare(
        `select a.name as account, s.name as scraper, substr(d.at, 1, 10) as day, count(*) as count from downloads d
      join scrapers s on s.id = d.scraper_id join accounts a on a.id = d.account_id
      group by d.account_id, d.scraper_id, day order by account, scraper, day`,
      )
      .all() as { account: string; scraper: string; day: string; count: number }[],
  };
}

/** The same, as the kept counts have it. */
function kept(db: Database.Database): ReturnType<typeof countedWithSql> {
  return {
    totals: db
      .prepare(
        `select s.name as scraper, a.name as owner, t.count from download_totals t
      join scrapers s on s.id = t.scraper_id join accounts a on a.id = t.account_id order by scraper, owner`,
      )
      .all() as { scraper: string; owner: string; count: number }[],
    days: db
      .prepare(
        `select s.name as scraper, d.day, d.count from download_days d
      join scrapers s on s.id = d.scraper_id order by scraper, day`,
      )
      .all() as { scraper: string; day: string; count: number }[],
    accountDays: db
      .prepare(
        `select a.name as account, s.name as scraper, d.day, d.count from download_account_days d
      join scrapers s on s.id = d.scraper_id join accounts a on a.id = d.account_id order by account, scraper, day`,
      )
      .all() as { account: string; scraper: string; day: string; count: number }[],
  };
}

function withMeta<T>(read: (db: Database.Database) => T): T {
  const db = openMeta(dataDir);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const text = async (url: string) => {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  return res.text();
};
const number = (s: string) => Number(s.replace(/,/g, ''));

/** What the page, scraper.json and the home page show of one scraper's downloads. */
async function shown(scraper: string) {
  const page = await text(`${server.base}/alice/${scraper}`);
  const info = JSON.parse(await text(`${server.base}/alice/${scraper}.json`)) as {
    downloads: { total: number; by: { owner: string; count: number }[] };
  };
  const home = await text(`${server.base}/`);
  const listed = new RegExp(`href="/alice/${scraper}">${scraper}</a></h3>[\\s\\S]*?Downloaded ([\\d,]+) times`).exec(home);
  return {
    pageTotal: number(/data-downloads="(\d+)"/.exec(page)![1]!),
    pageBy: [...page.matchAll(/<li><a href="\/(\w+)">\w+<\/a> <span class="count"[^>]*>([\d,]+)<\/span><\/li>/g)].map(([, owner, n]) => ({
      owner: owner!,
      count: number(n!),
    })),
    bars: [...page.matchAll(/data-day="([\d-]+)" data-count="(\d+)"/g)].map(([, day, n]) => ({ day: day!, count: Number(n) })),
    info: info.downloads,
    homeTotal: listed ? number(listed[1]!) : undefined,
  };
}

/** Checks what is shown of each scraper against `expected`, counted with SQL. */
async function assertShown(expected: ReturnType<typeof countedWithSql>): Promise<void> {
  for (const scraper of ['a', 'b', 'c']) {
    const by = expected.totals
      .filter((t) => t.scraper === scraper)
      .map(({ owner, count }) => ({ owner, count }))
      .sort((x, y) => y.count - x.count || x.owner.localeCompare(y.owner));
    const total = by.reduce((n, b) => n + b.count, 0);
    const perDay = new Map(expected.days.filter((d) => d.scraper === scraper).map((d) => [d.day, d.count]));
    const seen = await shown(scraper);
    assert.ok(total > 0, scraper);
    assert.deepEqual(seen.info, { total, by }, `${scraper}.json`);
    assert.equal(seen.pageTotal, total, `page of ${scraper}`);
    assert.deepEqual(seen.pageBy, by, `page of ${scraper}`);
    assert.equal(seen.homeTotal, total, `home page, ${scraper}`);
    assert.equal(seen.bars.length, 90);
    // Each bar against its own day, so a UTC midnight between counting and the page changes nothing.
    assert.deepEqual(
      seen.bars,
      seen.bars.map(({ day }) => ({ day, count: perDay.get(day) ?? 0 })),
      `chart of ${scraper}`,
    );
    assert.ok(
      seen.bars.some((b) => b.count > 0),
      scraper,
    );
  }
}

before(async () => {
  const store = openSqliteStore(file);
  const catalog = new Catalog(store, dataDir);
  for (const name of ['alice', 'bob', 'carol']) keys[name] = (await catalog.addUser(name)).key;
  const db = makeDb(tempDir(), 'd.sqlite', 'create table t (x); insert into t values (1), (2);');
  for (const name of ['a', 'b', 'c']) await catalog.addScraper(`alice/${name}`, db, { isPrivate: false, description: '' });
  await store.close();
  asBeforeKeyDetails(dataDir);

  // The file as it was before counts were kept: no count tables, schema version 0. Then a million
  // downloads over 120 days, unevenly spread over scrapers (4:2:1) and accounts (3:2:1), every status.
  const old = new Database(file);
  old.exec(`
    drop table download_totals; drop table download_days; pragma user_version = 0;
    create temp table scraper_slot (slot integer primary key, scraper_id integer);
    insert into scraper_slot select row_number() over (order by id) - 1, id from scrapers
      join (select 0 union all select 1 union all select 2 union all select 3) where name = 'a';
    insert into scraper_slot select 4 + row_number() over (order by id) - 1, id from scrapers
      join (select 0 union all select 1) where name = 'b';
    insert into scraper_slot select 6, id from scrapers where name = 'c';
    create temp table key_slot (slot integer primary key, key_id integer, account_id integer);
    insert into key_slot select row_number() over (order by k.id, n) - 1, k.id, k.account_id
      from api_keys k join accounts a on a.id = k.account_id
      join (select 3 as n union all select 2 union all select 1) on n <= case a.name when 'alice' then 3 when 'bob' then 2 else 1 end;
    with recursive n(i) as (select 0 union all select i + 1 from n where i < 999999)
    insert into downloads (scraper_id, account_id, key_id, at, format, query, status, rows, bytes, duration_ms)
    select s.scraper_id, k.account_id, k.key_id,
           strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (i % 120) || ' days', '-' || (i % 3600) || ' seconds'),
           'json', 'select 1', case i % 10 when 0 then 400 when 1 then 304 when 2 then 499 else 200 end, 1, 10, 1.5
    from n join scraper_slot s on s.slot = i % 7 join key_slot k on k.slot = (i / 7) % 6;`);
  assert.equal(old.prepare('select count(*) from downloads').pluck().get(), 1_000_000);
  old.close();

  server = await startServer({ dataDir });
});
after(async () => {
  await server.close();
  // A million downloads take ~100 MB: not left behind in the temporary folder.
  rmSync(dataDir, { recursive: true, force: true });
});

describe('an old metadata file with a million downloads', () => {
  test("is migrated on opening: schema version 8 (the latest), counts equal to those counted over the downloads, each key's last use its latest download", () => {
    withMeta((db) => {
      assert.equal(db.pragma('user_version', { simple: true }), 8);
      assert.deepEqual(kept(db), countedWithSql(db));
      const lastUse = db.prepare('select id, last_used_at as at from api_keys order by id').all();
      assert.deepEqual(lastUse, db.prepare('select key_id as id, max(at) as at from downloads group by key_id order by key_id').all());
    });
  });

  test('pages, scraper.json and the home page show the downloads by account, in all and per day', async () => {
    await assertShown(withMeta(countedWithSql));
  });

  test('is migrated once: opening it again (the CLI) counts nothing twice', async () => {
    const before = withMeta(kept);
    await runCliOk(['key', 'create', 'carol'], { dataDir });
    assert.deepEqual(withMeta(kept), before);
  });
});

test('after a mixed run through the API, the counts still agree with count(*)', async () => {
  const downloads = () => withMeta((db) => db.prepare('select count(*) from downloads').pluck().get() as number);
  const before = downloads();
  const get = async (scraper: string, format: string, params: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(dataUrl(server.base, `alice/${scraper}`, format, params), { headers });
    await res.arrayBuffer();
    return res;
  };
  const answered: number[] = [];
  for (let i = 0; i < 30; i++) {
    const key = keys[['alice', 'bob', 'carol'][i % 3]!]!;
    const scraper = ['a', 'b', 'c'][i % 2]!;
    answered.push((await get(scraper, 'json', { key, query: `select ${i} as i` })).status);
    answered.push((await get(scraper, 'csv', { key, query: 'select nope' })).status);
    answered.push((await get(scraper, 'json', { key, query: 'select 1' }, { 'if-none-match': '*' })).status);
    answered.push((await get(scraper, 'nope', { key })).status);
  }
  // Not downloads: no key, a bad key, an unknown scraper.
  assert.equal((await get('a', 'json', { query: 'select 1' })).status, 401);
  assert.equal((await get('a', 'json', { key: 'sph_nope', query: 'select 1' })).status, 401);
  assert.equal((await get('zz', 'json', { key: keys.alice!, query: 'select 1' })).status, 404);
  assert.deepEqual(new Set(answered), new Set([200, 400, 304, 404]));

  await waitFor(() => downloads() >= before + answered.length, 5000);
  assert.equal(downloads(), before + answered.length);
  const counted = withMeta(countedWithSql);
  withMeta((db) => assert.deepEqual(kept(db), counted));
  await assertShown(counted);
});

test("pages read only the kept counts: with the downloads emptied behind the server's back, they show the same", async () => {
  const counted = withMeta(countedWithSql);
  const db = new Database(file);
  try {
    db.exec('delete from downloads');
  } finally {
    db.close();
  }
  assert.deepEqual(withMeta(countedWithSql), { totals: [], days: [], accountDays: [] });
  // A page that counted the downloads would now show none.
  await assertShown(counted);
});
