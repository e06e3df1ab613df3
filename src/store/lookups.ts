import { LRUCache } from 'lru-cache';
import type { ApiKey, Scraper } from './records.js';

/** Keys and scrapers kept in memory each; the least recently used are dropped beyond this. */
const cachedLookups = 10_000;

/**
 * The key and scraper lookups an engine keeps in memory, by key hash and by scraperCacheKey. When
 * they are dropped is the engine's to say: each drops them on its own writes, and when another
 * process may have written (src/store/sqlite/connection.ts, src/store/pg/connection.ts). Misses are
 * never kept: a stream of made-up keys would otherwise push the real ones out.
 */
export class Lookups {
  readonly keys = new LRUCache<string, ApiKey>({ max: cachedLookups });
  readonly scrapers = new LRUCache<string, Scraper>({ max: cachedLookups });

  drop(): void {
    this.keys.clear();
    this.scrapers.clear();
  }
}
