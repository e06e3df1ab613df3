import type { DownloadRecord } from '../../src/store/types.js';

/** Who downloaded what, and when: the parts of a download record that tests choose. */
export type DownloadFacts = Pick<DownloadRecord, 'scraperId' | 'accountId' | 'keyId' | 'at'>;

/** A successful json download of `select 1`, as the recorder would give it to a store. */
export function aDownload(facts: DownloadFacts): DownloadRecord {
  return { ...facts, format: 'json', query: 'select 1', status: 200, rows: 1, bytes: 10, durationMs: 1.5 };
}
