import Database from 'better-sqlite3';
import { mkdir, open, rename, rmdir, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { errors } from '../errors.js';
import type { DataVersion, TableInfo } from '../store/types.js';
import { describeTables } from './describe-tables.js';
import { removeDatabaseFile, type ImportTarget } from './temp-files.js';

/** The first 16 bytes of every SQLite 3 database file. */
const sqliteMagic = Buffer.from('SQLite format 3\0', 'latin1');

/** The disk (or the quota) is full: the server's condition, not a fault of the file. */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

async function assertSqliteFile(source: string): Promise<void> {
  let header: Buffer;
  try {
    const file = await open(source, 'r');
    try {
      const { buffer, bytesRead } = await file.read(Buffer.alloc(16), 0, 16, 0);
      header = buffer.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw errors.dataInvalid(code === 'ENOENT' ? `${source}: no such file.` : `${source}: cannot be read (${code}).`);
  }
  if (!header.equals(sqliteMagic)) throw errors.dataInvalid(`${source} is not an SQLite database.`);
}

/**
 * Copies an SQLite database into a scraper's folder as a new, immutable data version: written to
 * `target.incoming`, checked, then renamed `target.file`.
 * The copy goes through SQLite's backup API, so a source in WAL mode is copied whole and consistent.
 * The copy is switched to rollback-journal mode: read-only connections to it then never create
 * -wal or -shm files, and the file stays byte-identical while it is served.
 * Nothing is left behind on failure.
 */
export async function importDataFile(source: string, target: ImportTarget): Promise<Omit<DataVersion, 'version'>> {
  await assertSqliteFile(source);
  const dir = path.dirname(target.file);
  const { incoming, file } = target;
  await mkdir(dir, { recursive: true });
  try {
    const src = new Database(source, { readonly: true, fileMustExist: true });
    try {
      await src.backup(incoming);
    } finally {
      src.close();
    }
    const db = new Database(incoming);
    let tables: TableInfo[];
    try {
      db.pragma('journal_mode = DELETE');
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw errors.dataInvalid(`${source} is damaged: ${String(check)}`);
      tables = describeTables(db);
    } finally {
      db.close();
    }
    const handle = await open(incoming, 'r');
    await handle.sync();
    await handle.close();
    // Written long ago if the check took long; a version file must look new until it is switched to (versions.ts).
    const now = new Date();
    await utimes(incoming, now, now);
    await rename(incoming, file);
    return { file, tables, sizeBytes: (await stat(file)).size, updatedAt: now.toISOString() };
  } catch (err) {
    await removeDatabaseFile(incoming);
    await rmdir(dir).catch(() => {}); // only if this import made it and left it empty
    if (isDiskFull(err)) throw errors.storageFull();
    if ((err as { code?: unknown }).code === 'SQLITE_NOMEM') throw errors.importResources();
    if (err instanceof Database.SqliteError) throw errors.dataInvalid(`${source} cannot be read as SQLite: ${err.message}`);
    throw err;
  }
}
