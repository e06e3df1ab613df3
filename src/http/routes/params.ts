import { errors } from '../../errors.js';
import type { Scraper, Store } from '../../store/types.js';

/** A query-string value given once; when repeated, the first one counts. */
export function singleParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A private scraper is answered exactly as an unknown one, so its existence is not revealed. */
export async function findPublicScraper(store: Store, owner: string, name: string): Promise<Scraper> {
  const scraper = await store.findScraper(owner, name);
  if (!scraper || scraper.isPrivate) throw errors.scraperNotFound(`${owner}/${name}`);
  return scraper;
}
