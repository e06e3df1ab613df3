import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'siphon-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
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
