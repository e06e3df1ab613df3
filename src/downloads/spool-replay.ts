import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DownloadRecord, DownloadStore } from '../store/types.js';
import { heartbeatMs, parseSpoolFileName, spoolDir, spoolFileName, thisHost, type DownloadSpool, type SpoolLog } from './spool.js';

/** Downloads recorded per transaction by a replay. */
const replayBatch = 500;
/** A spool of another machine untouched this long is taken for abandoned: its node would have touched it several times. */
const abandonedAfterMs = 4 * heartbeatMs;
/** Abandoned spools are looked for at start, then this often. */
const replayIntervalMs = 60_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether no running node writes the spool file `name` any more: on this machine, its process is
 * gone; on another, it has not been touched for a while (its node touches it every `heartbeatMs`).
 */
async function isAbandoned(dir: string, name: string, own: DownloadSpool): Promise<boolean> {
  const owner = parseSpoolFileName(name);
  if (!owner || own.owns(name)) return false;
  // A file of this very process that is not its spool's is one it took over and failed to replay:
  // it is replayed once this process has stopped, not by another server in it (tests run several).
  if (owner.host === thisHost()) return !isAlive(owner.pid);
  const touched = await stat(path.join(dir, name)).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
  return touched !== undefined && Date.now() - touched > abandonedAfterMs;
}

/** Records what the spool file holds beyond what the store has of it, then removes it. Returns how many it recorded. */
async function replay(store: DownloadStore, id: string, file: string): Promise<number> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  // A line without its end was being written when the node was killed: its download was not answered.
  lines.pop();
  const downloads = lines.map((line) => {
    try {
      return JSON.parse(line) as DownloadRecord;
    } catch {
      return undefined;
    }
  });
  const from = await store.spoolRecorded(id);
  let replayed = 0;
  for (let start = from; start < downloads.length; start += replayBatch) {
    const end = Math.min(start + replayBatch, downloads.length);
    const batch = downloads.slice(start, end).filter((d): d is DownloadRecord => d !== undefined);
    await store.recordDownloads(batch, { spool: id, recorded: end });
    replayed += batch.length;
  }
  await rm(file, { force: true });
  await store.forgetSpool(id);
  return replayed;
}

/**
 * Replays the spools no running node writes (spool.ts): each is first renamed to this process's
 * name, an atomic step that only one of several nodes looking at once can take, then recorded from
 * where the store says it was recorded up to.
 */
export async function replayAbandonedSpools(
  store: DownloadStore,
  dataDir: string,
  own: DownloadSpool,
  log: SpoolLog & { info: SpoolLog['error'] },
): Promise<void> {
  const dir = spoolDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!(await isAbandoned(dir, name, own))) continue;
    const { id } = parseSpoolFileName(name)!;
    const claimed = path.join(dir, spoolFileName(id));
    try {
      await rename(path.join(dir, name), claimed);
    } catch {
      continue; // another node took it first
    }
    const replayed = await replay(store, id, claimed);
    log.info({ spool: name, replayed }, 'downloads of a stopped node replayed from its spool');
  }
}

/** Replays abandoned spools now, then every minute until `stop()`. Failures go to `onError` and are tried again. */
export async function startSpoolReplays(
  store: DownloadStore,
  dataDir: string,
  own: DownloadSpool,
  log: SpoolLog & { info: SpoolLog['error'] },
): Promise<{ stop(): Promise<void> }> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= replayAbandonedSpools(store, dataDir, own, log)
      .catch((err: unknown) => log.error({ err }, 'could not replay the downloads spools'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  await run();
  const timer = setInterval(() => void run(), replayIntervalMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
