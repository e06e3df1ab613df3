import { errors } from '../errors.js';
import { parseVersionId } from '../scrapers/version-id.js';
import type { Scraper, ScraperStore } from '../store/types.js';
import { paramPairs } from '../utils/query-string.js';
import { withParams } from '../views/table-paths.js';

/** The address of the same request without `version`, so reading the current data; without a key, as every link shown. */
export function currentDataHref(url: string): string {
  const { pathname } = new URL(url, 'http://localhost');
  return withParams(
    pathname,
    paramPairs(url).filter(([name]) => name !== 'version' && name !== 'key'),
  );
}

/**
 * The scraper as it was at the data version `text` names (`version=`), or as it is when none is
 * named, or the current one is: 400 for a malformed id, 410 for a version not kept (any more, or
 * ever), the message linking to the current data. Everything after reads the version's own file
 * and tables, and what is cached by data version (ETags, results) is kept apart.
 */
export async function pinVersion(store: ScraperStore, scraper: Scraper, text: string | undefined, url: string): Promise<Scraper> {
  const version = parseVersionId(text);
  if (version === undefined || version === scraper.data.version) return scraper;
  const data = await store.findVersion(scraper.id, version);
  if (!data) throw errors.versionGone(`${scraper.owner.name}/${scraper.name}`, version, currentDataHref(url));
  return { ...scraper, data };
}
