/**
 * What an anonymous page view costs with many downloads recorded: the scraper page's latency before
 * and after 1,000,000 download records are added to its history. Pages read totals kept as
 * downloads are recorded, so the ratio should stay near 1.
 */
import path from 'node:path';
import type { DownloadRecord } from '../src/store/types.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import { chain } from './http-client.js';
import { median, percentile } from './proc-stats.js';

export interface ViewTimes {
  medianMs: number;
  p99Ms: number;
  statuses: number[];
}

const views = 40;
const batch = 10_000;

/** `views` views one after the other; the first, which computes the table previews once per data version, is not counted. */
export async function viewTimes(url: string): Promise<ViewTimes> {
  const steps = (await chain(Array.from({ length: views + 1 }, () => url))).slice(1);
  const ms = steps.map((s) => s.ms);
  return { medianMs: median(ms), p99Ms: percentile(ms, 99), statuses: steps.map((s) => s.status) };
}

/**
 * Writes `records` download records of scraper OWNER/NAME straight into the data folder's store,
 * spread over the last 120 days (so the 90-day chart and the totals both have work to do). The
 * server must be stopped: it keeps the store open with caches of its own.
 */
export async function addDownloadRecords(dataDir: string, owner: string, name: string, records: number): Promise<number> {
  const store = openSqliteStore(path.join(dataDir, 'siphon.db'));
  try {
    const scraper = (await store.findScraper(owner, name))!;
    const template: Omit<DownloadRecord, 'at'> = {
      scraperId: scraper.id,
      accountId: scraper.owner.id,
      keyId: 1,
      format: 'json',
      query: 'select 1',
      status: 200,
      rows: 1,
      bytes: 10,
      durationMs: 1,
    };
    const started = performance.now();
    const dayMs = 24 * 60 * 60 * 1000;
    for (let done = 0; done < records; done += batch) {
      const now = Date.now();
      await store.recordDownloads(
        Array.from({ length: Math.min(batch, records - done) }, (_, i) => ({
          ...template,
          at: new Date(now - ((done + i) % 120) * dayMs).toISOString(),
        })),
      );
    }
    return performance.now() - started;
  } finally {
    await store.close();
  }
}
