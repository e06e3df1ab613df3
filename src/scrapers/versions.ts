import { readdir, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { maxQueueTimeoutMs } from '../config.js';

/**
 * How long a data version stays on disk after it stopped being current. A request looks up its
 * scraper's file, then may wait in the queue (at most `maxQueueTimeoutMs`) before a query process
 * opens it; once open, removing the file is harmless (Linux keeps it until it is closed). Twice the
 * longest wait leaves a wide margin for everything else between the look-up and the open.
 */
export const versionRetentionMs = 2 * maxQueueTimeoutMs;

const versionName = /^\d+-[0-9a-f]+\.sqlite$/;

async function modifiedAt(file: string): Promise<number | undefined> {
  return stat(file).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
}

/** Called right after the switch to `file`: its modification time is from then on when it became current. */
export async function markCurrent(file: string): Promise<void> {
  const now = new Date();
  await utimes(file, now, now);
}

async function versionFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return names.filter((name) => versionName.test(name)).map((name) => path.join(dir, name));
}

/**
 * Called just before a scraper is removed: every version file in its folder is touched, so that from
 * then on each one's modification time is no earlier than the last moment a request could look it up.
 * Touching first means a crash between the two leaves files that merely look newer.
 */
export async function markRemoved(dir: string): Promise<void> {
  const now = new Date();
  for (const file of await versionFiles(dir)) await utimes(file, now, now).catch(() => {});
}

/**
 * Removes the version files of a folder no scraper claims once they are older than
 * `versionRetentionMs`. Such a folder holds a removed scraper's versions (touched at its removal by
 * `markRemoved`, so the rule of `removeOldVersions` holds: none has been looked up for that long),
 * the first version of a scraper being added (written a moment before it is claimed), or one that a
 * crash between an import and its registration left. The folder itself stays: removing it could pull
 * it from under an add of the same name that has just made it.
 */
export async function removeUnclaimedVersions(dir: string, now = Date.now()): Promise<void> {
  for (const file of await versionFiles(dir)) {
    const at = await modifiedAt(file);
    if (at !== undefined && now - at > versionRetentionMs) await rm(file, { force: true });
  }
}

/**
 * Removes the version files of `dir` that the store does not know (`known`: the names of its kept
 * and retired versions' files) and that no request can still be about to open: versions replaced
 * before the store kept versions, or left by a crash. `current` is the scraper's current file as
 * looked up before this call (it may have been replaced since). A known file goes by its retirement
 * instead (version-sweeper.ts): the store says when it stopped being served.
 *
 * The rule for the others, which needs no knowledge of other processes (the CLI publishes too): such
 * a file goes when both it and `current` were last modified more than `versionRetentionMs` before `now`.
 * Why that is safe: a file is written once, then touched once by `markCurrent` right after its switch,
 * and is current during one stretch of time. So `current` has been current since before
 * now − retention (its switch came before its touch) until the look-up; a file switched to after the
 * look-up is younger than retention (an import touches its file when it finishes, a moment before its
 * switch). Hence the file removed has not been current at any time in the last `versionRetentionMs`,
 * and every request that looked it up did so earlier and has opened it or given up by now.
 * The same age test on the file itself keeps a version an import has just written and not switched
 * to yet (a slow import can finish after a newer one). A crash between a switch and its touch leaves
 * the new file with the time its import finished, a moment early: the margin in the retention covers it.
 */
export async function removeOldVersions(dir: string, current: string, known: ReadonlySet<string>, now = Date.now()): Promise<void> {
  const settled = (at: number | undefined) => at !== undefined && now - at > versionRetentionMs;
  if (!settled(await modifiedAt(current))) return;
  for (const file of await versionFiles(dir)) {
    const name = path.basename(file);
    if (name !== path.basename(current) && !known.has(name) && settled(await modifiedAt(file))) await rm(file, { force: true });
  }
}
