/**
 * The benchmark's data: one table `data` of 1,000,000 rows in 8 mixed columns, rebuilt every run
 * from a seeded generator, so every run reads the same rows.
 */
import Database from 'better-sqlite3';
import path from 'node:path';

export const fixtureRows = 1_000_000;
export const fixtureTable = 'data';

/** A small seeded PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (
  'council application planning street road lane house extension garage fence tree removal ' +
  'dwelling storey rear front side alteration demolition new works heritage notice approved ' +
  'refused pending review appeal lot section deposited plan north south east west park creek'
).split(' ');

/**
 * Writes `data(id INTEGER PRIMARY KEY, count INTEGER, score REAL, title TEXT (40 chars),
 * description TEXT (200 chars), date_scraped TEXT (ISO date), reference TEXT (30 % NULL),
 * price REAL (30 % NULL))` into `dir/fixture.sqlite`, in one transaction. Returns the file.
 */
export function buildFixture(dir: string, rows = fixtureRows): string {
  const file = path.join(dir, 'fixture.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`create table ${fixtureTable} (id integer primary key, count integer not null, score real not null,
    title text not null, description text not null, date_scraped text not null, reference text, price real)`);
  const rand = prng(42);
  const text = (length: number) => {
    let s = words[Math.floor(rand() * words.length)]!;
    while (s.length < length) s += ` ${words[Math.floor(rand() * words.length)]!}`;
    return s.slice(0, length);
  };
  const day0 = Date.UTC(2015, 0, 1);
  const insert = db.prepare(`insert into ${fixtureTable} values (?, ?, ?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (let id = 1; id <= rows; id++) {
      insert.run(
        id,
        Math.floor(rand() * 2_000_000_000) - 1_000_000_000,
        rand() * 1e6,
        text(40),
        text(200),
        new Date(day0 + Math.floor(rand() * 4000) * 86_400_000).toISOString().slice(0, 10),
        rand() < 0.3 ? null : `DA/${Math.floor(rand() * 1e5)}/${2015 + Math.floor(rand() * 11)}`,
        rand() < 0.3 ? null : Math.round(rand() * 1e8) / 100,
      );
    }
  })();
  db.close();
  return file;
}

/** Time to prepare `sql` and step to its first row, on an already-open, warmed connection. */
export function inProcessFirstRow(db: Database.Database, sql: string): number {
  const started = performance.now();
  const it = db.prepare(sql).raw(true).iterate();
  it.next();
  it.return?.();
  return performance.now() - started;
}
