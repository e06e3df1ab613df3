import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Scraper, ScraperStore } from '../store/types.js';
import { listScraperDirs } from './folders.js';
import { retentionOf, type RetentionSettings } from './retention.js';
import { removeOldVersions, removeUnclaimedVersions, versionRetentionMs } from './versions.js';

/** Old versions can only be removed some minutes after they stop being served (versions.ts), so someone has to come back for them. */
const sweepIntervalMs = 60_000;

/**
 * One scraper's part of a sweep, also run by a publish before it imports (so that the CLI, with no
 * server running, keeps the disk bounded too): retires the versions its retention no longer keeps,
 * removes the files of those retired more than `versionRetentionMs` before `now` (a request that
 * found one before its retirement has opened it or given up by then) and forgets them, then the
 * files the store does not know, by their age (versions.ts).
 */
export async function sweepScraper(store: ScraperStore, scraper: Scraper, dir: string, settings: RetentionSettings, now = Date.now()) {
  await store.retireVersions(scraper.id, retentionOf(scraper, settings), new Date(now).toISOString());
  const known = new Set<string>();
  for (const retired of await store.retiredVersions(scraper.id)) {
    if (now - Date.parse(retired.retiredAt) <= versionRetentionMs) {
      known.add(path.basename(retired.file));
      continue;
    }
    // The file first: a crash between the two leaves a row whose file is gone, removed again harmlessly.
    await rm(retired.file, { force: true });
    await store.forgetVersion(scraper.id, retired.version);
  }
  for (const kept of await store.listVersions(scraper.id)) known.add(path.basename(kept.file));
  await removeOldVersions(dir, scraper.data.file, known, now);
}

/**
 * Removes the data versions due to go in every scraper's folder: the versions of a scraper the store
 * knows that its retention no longer keeps, and the versions of a removed scraper (versions.ts says
 * when each may go). `now` is for tests, which look minutes ahead.
 */
export async function sweepVersions(store: ScraperStore, dataDir: string, settings: RetentionSettings, now = Date.now()): Promise<void> {
  for (const { owner, name, dir } of await listScraperDirs(dataDir)) {
    const scraper = await store.findScraper(owner, name);
    if (scraper) await sweepScraper(store, scraper, dir, settings, now);
    else await removeUnclaimedVersions(dir, now);
  }
}

/** Sweeps every minute until `stop()`, which waits for a sweep under way (it uses the store). */
export function startVersionSweeper(
  store: ScraperStore,
  dataDir: string,
  settings: RetentionSettings,
  onError: (err: unknown) => void,
): { stop(): Promise<void> } {
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweepVersions(store, dataDir, settings)
      .catch(onError)
      .finally(() => {
        sweeping = undefined;
      });
  }, sweepIntervalMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
