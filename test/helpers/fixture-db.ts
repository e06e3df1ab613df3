import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onExit } from './on-exit.js';

const tempDirs: string[] = [];
// A folder still mounted (a SmallDisk whose test failed before unmounting) cannot go, and stays.
onExit(() => {
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // still mounted, or already removed by its test
    }
  }
});

/** A new folder in the system's temporary folder, removed when the test file's process ends (see onExit). */
export function tempDir(prefix = 'siphon-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Builds a real SQLite file from SQL text. */
export function makeDb(dir: string, name: string, sql: string): string {
  const file = path.join(dir, name);
  const db = new Database(file);
  db.exec(sql);
  db.close();
  return file;
}

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** A table `places` whose values look like SQL, quotes, wildcards and markup: what view parameters are tried on. */
export const placesSql = `create table places (suburb text, cost integer, lodged text);
  insert into places values ('Katoomba', 10, '2026-01-02'), ('Leura', 20, '2026-02-03'), (null, 30, null),
    ('O''Brien', 40, '2026-03-04'), ('50%_off', 50, '2026-04-05'), ('Katoomba'' --', 60, '2026-05-06'), ('*', 70, '');`;

/**
 * A table `t` of towns and counts, two of whose towns are the SQL-injection attempts saved queries'
 * parameters are tried with, and a table `x` the second would drop if it were ever spliced in.
 */
export const townsSql = `create table t (id integer primary key, town text, n integer);
  insert into t values (1, 'Leura', 1), (2, 'Leura', 5), (3, 'Katoomba', 9), (4, ''' or 1=1 --', 9), (5, '"); drop table x; --', 9);
  create table x (a); insert into x values (1);`;
