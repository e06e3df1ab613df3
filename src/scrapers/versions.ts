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
  return stat(file).then((s) => s.mtimeMs, () => undefined);
}

/** Called right after the switch to `file`: its modification time is from then on when it became current. */
export async function markCurrent(file: string): Promise<void> {
  const now = new Date();
  await utimes(file, now, now);
}

/**
 * Removes the version files of `dir` that no request can still be about to open. `current` is the
 * scraper's current file as looked up before this call (it may have been replaced since).
 *
 * The rule, which needs no knowledge of other processes (the CLI publishes too): a file other than
 * `current` goes when both it and `current` were last modified more than `versionRetentionMs` ago.
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
export async function removeOldVersions(dir: string, current: string): Promise<void> {
  const now = Date.now();
  const settled = (at: number | undefined) => at !== undefined && now - at > versionRetentionMs;
  if (!settled(await modifiedAt(current))) return;
  for (const name of await readdir(dir)) {
    if (!versionName.test(name) || name === path.basename(current)) continue;
    const file = path.join(dir, name);
    if (settled(await modifiedAt(file))) await rm(file, { force: true });
  }
}
