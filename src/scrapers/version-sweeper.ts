import type { ScraperStore } from '../store/types.js';
import { listScraperDirs } from './folders.js';
import { removeOldVersions, removeUnclaimedVersions } from './versions.js';

/** Old versions can only be removed some minutes after a publish (versions.ts), so someone has to come back for them. */
const sweepIntervalMs = 60_000;

/**
 * Removes the data versions due to go in every scraper's folder: the old versions of a scraper the
 * store knows, and the versions of a removed scraper (versions.ts says when each may go).
 */
export async function sweepVersions(store: ScraperStore, dataDir: string): Promise<void> {
  for (const { owner, name, dir } of await listScraperDirs(dataDir)) {
    const scraper = await store.findScraper(owner, name);
    if (scraper) await removeOldVersions(dir, scraper.data.file);
    else await removeUnclaimedVersions(dir);
  }
}

/** Sweeps every minute until `stop()`, which waits for a sweep under way (it uses the store). */
export function startVersionSweeper(store: ScraperStore, dataDir: string, onError: (err: unknown) => void): { stop(): Promise<void> } {
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweepVersions(store, dataDir)
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
