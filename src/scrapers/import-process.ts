import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errors, SiphonError } from '../errors.js';
import { takesReserve } from '../limits/disk-reserve.js';
import { spawnLimited } from '../process/spawn-limited.js';
import type { DataVersion } from '../store/types.js';
import type { Importer } from './catalog.js';
import { newImportTarget, removeDatabaseFile, type ImportTarget } from './temp-files.js';

export interface ImportRequest {
  source: string;
  target: ImportTarget;
}

export type ImportReply =
  | { ok: true; data: Omit<DataVersion, 'version'> }
  /** `code` and `status` when the file was refused (a SiphonError); only a message when the import broke. */
  | { ok: false; error: { code?: string; status?: number; message: string } };

export interface ImportLimits {
  /** The import is killed after this long and refused with importTimeout. */
  timeoutMs: number;
  /** Address space of the import process; an import needing more is refused with importResources. */
  memoryMb: number;
  /** Free space of the disk of `dataDir` that an import may not take (refused with storageFull); 0: none. */
  diskReserveBytes: number;
  dataDir: string;
}

/** How often a running import's disk is looked at: a copy written at disk speed takes what it has before the next look. */
const reserveLookMs = 100;

/** The size of the file, or 0 if it cannot be read (the import process says why). */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

const childPath = fileURLToPath(new URL('./import-child.js', import.meta.url));

function replyError(reply: Extract<ImportReply, { ok: false }>): Error {
  const { code, status, message } = reply.error;
  return code ? new SiphonError(code, status!, message) : new Error(message);
}

/**
 * `importDataFile`, run in a process of its own (see import-child.ts for why) under `limits`. The
 * process is killed (SIGKILL: a long SQLite step cannot be interrupted otherwise) when the time limit
 * passes, or when `signal` aborts, the promise then rejecting with the signal's reason. It settles
 * only once the process has exited and, unless the import succeeded, its files are removed: a killed
 * process cleans up nothing, which is why the file names are chosen here.
 */
export function importInChildProcess(
  source: string,
  dir: string,
  limits: ImportLimits,
  signal?: AbortSignal,
): Promise<Omit<DataVersion, 'version'>> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  // The copy is about as large as the file: refused now if it would take the disk's reserve.
  if (takesReserve(limits.dataDir, limits.diskReserveBytes, sizeOf(source))) return Promise.reject(errors.storageFull());
  const target = newImportTarget(dir);
  const timeoutSeconds = limits.timeoutMs / 1000;
  // Our timer stops it first; the CPU limit (a second later) stops it if we are gone.
  const { proc } = spawnLimited(childPath, { memoryMb: limits.memoryMb, cpuSeconds: timeoutSeconds + 1 });
  proc.stdout!.resume();
  let reply: ImportReply | undefined;
  /** Why we killed it, or why it could not be run. */
  let failure: unknown;
  const stop = (why: unknown) => {
    failure ??= why;
    proc.kill('SIGKILL');
  };
  const timer = setTimeout(() => stop(errors.importTimeout(timeoutSeconds)), limits.timeoutMs);
  // Others write to the disk meanwhile (queries, other imports): it stops if the reserve is reached.
  const reserveWatch = setInterval(() => {
    if (takesReserve(limits.dataDir, limits.diskReserveBytes)) stop(errors.storageFull());
  }, reserveLookMs);
  const onAbort = () => stop(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  proc.once('message', (message: ImportReply) => {
    // Done: nothing to stop any more, it exits by itself.
    reply = message;
    clearTimeout(timer);
    clearInterval(reserveWatch);
    signal?.removeEventListener('abort', onAbort);
  });
  proc.on('error', stop);
  proc.send({ source, target } satisfies ImportRequest, (err) => err && stop(err));

  return new Promise((resolve, reject) => {
    proc.once('close', (_code, exitSignal) => {
      clearTimeout(timer);
      clearInterval(reserveWatch);
      signal?.removeEventListener('abort', onAbort);
      if (reply?.ok) return resolve(reply.data);
      // Died without an answer and not by our hand: its CPU time ran out, or its memory (Node aborts
      // when it cannot allocate), or it was killed from outside.
      const died = () => (exitSignal === 'SIGXCPU' ? errors.importTimeout(timeoutSeconds) : errors.importResources());
      const error = failure ?? (reply ? replyError(reply) : died());
      void Promise.all([removeDatabaseFile(target.incoming), removeDatabaseFile(target.file)]).then(() => reject(error), reject);
    });
  });
}

/** A Catalog importer that imports in a process of its own under `limits`. */
export function importerWithLimits(limits: ImportLimits): Importer {
  return (source, dir, signal) => importInChildProcess(source, dir, limits, signal);
}
