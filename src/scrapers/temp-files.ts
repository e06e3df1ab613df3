import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { listScraperDirs } from './folders.js';

/**
 * Publishing's temporary files: the upload (`.upload-<pid>-<random>.sqlite` in the data folder) and
 * the import's copy (`.incoming-<pid>-<stamp>.sqlite` in the scraper's folder, renamed `<stamp>.sqlite`
 * once checked). `<pid>` is the process that removes the file when the publish ends, the server or
 * the CLI (not the import process, which may be killed): a file whose process is gone was left by a
 * crash, and one whose process is running belongs to a publish in progress.
 */
const uploadName = /^\.upload-(\d+)-[0-9a-f]+\.sqlite(?:-journal|-wal|-shm)?$/;
const incomingName = /^\.incoming-(\d+)-\d+-[0-9a-f]+\.sqlite(?:-journal|-wal|-shm)?$/;

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

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function removeLeftoversIn(dir: string, pattern: RegExp): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const pid = Number(pattern.exec(name)?.[1] ?? NaN);
    // Our own pid too: a server restarted in a container often gets the pid its crashed run had.
    if (Number.isNaN(pid) || (pid !== process.pid && isRunning(pid))) continue;
    await rm(path.join(dir, name), { force: true });
    removed.push(path.join(dir, name));
  }
  return removed;
}

/**
 * Removes the temporary files of publishes whose process died before it could (a crash, SIGKILL,
 * a power cut), keeping those of publishes running now (a CLI publish while the server starts).
 * Returns the files removed.
 */
export async function removeLeftoverTempFiles(dataDir: string): Promise<string[]> {
  const removed = await removeLeftoversIn(dataDir, uploadName);
  for (const { dir } of await listScraperDirs(dataDir)) removed.push(...(await removeLeftoversIn(dir, incomingName)));
  return removed;
}
