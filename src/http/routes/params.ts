import { errors } from '../../errors.js';
import type { Scraper, ScraperStore } from '../../store/types.js';

/** A query-string value given once; when repeated, the first one counts. */
export function singleParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The scraper as `accountId` may see it: a private scraper is found for its owner only, and answered
 * to everyone else exactly as an unknown one, so its existence is not revealed.
 */
export async function findScraperFor(store: ScraperStore, accountId: number | undefined, owner: string, name: string): Promise<Scraper> {
  const scraper = await store.findScraper(owner, name);
  if (!scraper || (scraper.isPrivate && scraper.owner.id !== accountId)) throw errors.scraperNotFound(`${owner}/${name}`);
  return scraper;
}

/** The scraper as anyone may see it: public ones only. */
export function findPublicScraper(store: ScraperStore, owner: string, name: string): Promise<Scraper> {
  return findScraperFor(store, undefined, owner, name);
}
