import type { Store } from '../store/types.js';
import { listScraperDirs } from './folders.js';
import { removeOldVersions } from './versions.js';

/** Old versions can only be removed some minutes after a publish (versions.ts), so someone has to come back for them. */
const sweepIntervalMs = 60_000;

/** Removes the old data versions due to go in every scraper's folder whose scraper the store knows. */
export async function sweepVersions(store: Store, dataDir: string): Promise<void> {
  for (const { owner, name, dir } of await listScraperDirs(dataDir)) {
    // Unknown to the store: a scraper being added, whose first version must stay.
    const scraper = await store.findScraper(owner, name);
    if (scraper) await removeOldVersions(dir, scraper.data.file);
  }
}

/** Sweeps every minute until `stop()`, which waits for a sweep under way (it uses the store). */
export function startVersionSweeper(store: Store, dataDir: string, onError: (err: unknown) => void): { stop(): Promise<void> } {
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweepVersions(store, dataDir).catch(onError).finally(() => { sweeping = undefined; });
  }, sweepIntervalMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
