/**
 * What an anonymous page view costs with many downloads recorded: the scraper page's latency before
 * and after 1,000,000 download records are added to its history. Pages read totals kept as
 * downloads are recorded, so the ratio should stay near 1.
 */
import type { DownloadRecord, Store } from '../src/store/types.js';
import type { HttpClient } from './http-client.js';
import { median } from './stats.js';

export interface PageViewResults {
  page: string;
  views: number;
  records: number;
  recordMs: number;
  before: { medianMs: number; p99Ms: number };
  after: { medianMs: number; p99Ms: number };
}

const views = 40;
const batch = 10_000;

async function viewTimes(client: HttpClient, url: string): Promise<{ medianMs: number; p99Ms: number; statuses: number[] }> {
  // The first view computes the table previews, once per data version; the others are what visitors get.
  const steps = (await client.chain(Array.from({ length: views + 1 }, () => url))).steps.slice(1);
  const sorted = steps.map((s) => s.ms).sort((a, b) => a - b);
  return { medianMs: median(sorted), p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]!, statuses: steps.map((s) => s.status) };
}

export async function measurePageViews(o: {
  client: HttpClient; base: string; page: string; store: Store; records: number; template: Omit<DownloadRecord, 'at'>;
}): Promise<PageViewResults & { statuses: number[] }> {
  const url = `${o.base}/${o.page}`;
  const before = await viewTimes(o.client, url);
  const started = performance.now();
  const dayMs = 24 * 60 * 60 * 1000;
  for (let done = 0; done < o.records; done += batch) {
    const now = Date.now();
    // Spread over the last 120 days, so the 90-day chart and the totals both have work to do.
    await o.store.recordDownloads(Array.from({ length: Math.min(batch, o.records - done) }, (_, i) => ({
      ...o.template, at: new Date(now - ((done + i) % 120) * dayMs).toISOString(),
    })));
  }
  const recordMs = performance.now() - started;
  const after = await viewTimes(o.client, url);
  return {
    page: o.page, views, records: o.records, recordMs,
    before: { medianMs: before.medianMs, p99Ms: before.p99Ms }, after: { medianMs: after.medianMs, p99Ms: after.p99Ms },
    statuses: [...before.statuses, ...after.statuses],
  };
}
