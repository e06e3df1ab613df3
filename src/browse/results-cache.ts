import { LRUCache } from 'lru-cache';
import type { Scraper } from '../store/types.js';
import type { TableView } from './types.js';

/**
 * Counts, facets and facet suggestions already computed, by data version and selection (filters and
 * search: neither the sort nor the page changes them), so the next visitor of a view gets them at
 * once. Bounded in entries and in size (of their JSON); the least recently used go first. A data
 * version's file is its own (a publish is a new file), so its path names the version on every server
 * this process runs.
 */
const cache = new LRUCache<string, object>({
  max: 10_000,
  maxSize: 32 * 2 ** 20,
  sizeCalculation: (value, key) => key.length + JSON.stringify(value).length,
});

export function resultKey(scraper: Scraper, table: string, view: TableView, what: string): string {
  return JSON.stringify([scraper.data.file, scraper.data.version, table, view.filters, view.search ?? null, what]);
}

export const cachedResult = <T>(key: string): T | undefined => cache.get(key) as T | undefined;
export const keepResult = (key: string, value: object): void => void cache.set(key, value);
