import { asciiLower } from '../shared/sql-names.js';

/**
 * What both stores cache a scraper under: its owner's name and its own, folded as the stores match
 * them (ASCII only, as SQLite's NOCASE does), so that every spelling of a name finds one entry.
 * The owner's length comes first, so no two pairs make one key whatever their names hold (`/` too:
 * a path segment may send one encoded); JSON of the pair did the same at ~1 µs of every call.
 */
export function scraperCacheKey(owner: string, name: string): string {
  return `${owner.length}:${asciiLower(owner)}/${asciiLower(name)}`;
}
