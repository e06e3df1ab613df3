import { asciiLower } from '../sql/tokens.js';

/**
 * What both stores cache a scraper under: its owner's name and its own, folded as the stores match
 * them (ASCII only, as SQLite's NOCASE does), so that every spelling of a name finds one entry.
 */
export function scraperCacheKey(owner: string, name: string): string {
  return JSON.stringify([asciiLower(owner), asciiLower(name)]);
}
