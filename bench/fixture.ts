/**
 * The benchmark's data: one table of real rows, and the in-process better-sqlite3 measurements that
 * Siphon's figures are divided by.
 */
import Database from 'better-sqlite3';
import path from 'node:path';

export const fixtureRows = 1_000_000;
export const fixtureTable = 't';

/** A small seeded PRNG (mulberry32), so every run reads the same data. */
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
 * Writes `t(id INTEGER PRIMARY KEY, n INTEGER, r REAL, txt TEXT (20–100 chars), note TEXT NULL)`
 * with `rows` rows into `dir/fixture.sqlite`, in one transaction. Returns the file.
 */
export function buildFixture(dir: string, rows = fixtureRows): string {
  const file = path.join(dir, 'fixture.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`create table ${fixtureTable} (id integer primary key, n integer not null, r real not null,
    txt text not null, note text)`);
  const rand = prng(42);
  const text = (min: number, max: number) => {
    const target = min + Math.floor(rand() * (max - min + 1));
    let s = words[Math.floor(rand() * words.length)]!;
    while (s.length < target) s += ` ${words[Math.floor(rand() * words.length)]!}`;
    return s.slice(0, target);
  };
  const insert = db.prepare(`insert into ${fixtureTable} values (?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (let id = 1; id <= rows; id++) {
      insert.run(id, Math.floor(rand() * 2_000_000_000) - 1_000_000_000, rand() * 1e6,
        text(20, 100), rand() < 0.3 ? null : text(5, 40));
    }
  })();
  db.close();
  return file;
}

/** 64 KB chunks turned into bytes and dropped, as an encoder feeding a socket would do. */
class CountingSink {
  bytes = 0;
  private pending = '';
  write(s: string): void {
    this.pending += s;
    if (this.pending.length >= 64 * 1024) this.flush();
  }
  flush(): void {
    this.bytes += Buffer.byteLength(this.pending);
    this.pending = '';
  }
}

export interface InProcessExport {
  ms: number;
  rows: number;
  bytes: number;
}

/**
 * The export baseline: better-sqlite3 in this process, `.raw(true).iterate()` and `JSON.stringify(row)`
 * per row into a counting sink, no HTTP, no child process.
 */
export function inProcessExport(file: string, sql: string): InProcessExport {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const started = performance.now();
    const sink = new CountingSink();
    let rows = 0;
    for (const row of db.prepare(sql).raw(true).iterate()) {
      sink.write(JSON.stringify(row));
      sink.write('\n');
      rows += 1;
    }
    sink.flush();
    return { ms: performance.now() - started, rows, bytes: sink.bytes };
  } finally {
    db.close();
  }
}

/** Time to prepare `sql` and step to its first row, on an already-open, warmed connection. */
export function inProcessFirstRow(db: Database.Database, sql: string): number {
  const started = performance.now();
  const it = db.prepare(sql).raw(true).iterate();
  it.next();
  it.return?.();
  return performance.now() - started;
}
