import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Publishing's temporary files: the upload (`.upload-<pid>-<random>.sqlite` in the data folder) and
 * the import's copy (`.incoming-<pid>-<stamp>.sqlite` in the scraper's folder, renamed `<stamp>.sqlite`
 * once checked). `<pid>` is the process that removes the file when the publish ends, the server or
 * the CLI (not the import process, which may be killed): a file whose process is gone was left by a
 * crash, and one whose process is running belongs to a publish in progress.
 */
export function newUploadFile(dataDir: string): string {
  return path.join(dataDir, `.upload-${process.pid}-${randomBytes(8).toString('hex')}.sqlite`);
}

/** Where an import writes its copy (`incoming`), and the version file that copy becomes once checked. */
export interface ImportTarget {
  incoming: string;
  file: string;
}

/** Version files are named `<Date.now()>-<random>.sqlite`. */
export function newImportTarget(dir: string): ImportTarget {
  const stamp = `${Date.now()}-${randomBytes(4).toString('hex')}`;
  return { incoming: path.join(dir, `.incoming-${process.pid}-${stamp}.sqlite`), file: path.join(dir, `${stamp}.sqlite`) };
}

/** Removes an SQLite file and the journal, -wal and -shm files SQLite may have made beside it. */
export async function removeDatabaseFile(file: string): Promise<void> {
  for (const leftover of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) await rm(leftover, { force: true });
}
