import type { Catalog } from '../scrapers/catalog.js';
import type { Account, AccountStore, ApiKey } from '../store/types.js';

/**
 * The label of the key a signed-in visitor's downloads from the pages run with, listed on their
 * account page like any key of theirs.
 */
export const pagesKeyLabel = 'downloads from the pages';

/**
 * The account's key for downloads from the pages: its first unrevoked read-only key of that label
 * without origins, made when it has none (also after the visitor revoked it). Made here, its text
 * is never seen by anyone: only its hash is kept, so it can be used by no one but a session of its
 * account, through the pages' download addresses. Two first downloads at once may each make one;
 * the oldest is used from then on.
 */
export async function pagesKey(store: AccountStore, catalog: Catalog, account: Account): Promise<ApiKey> {
  const find = async () =>
    (await store.listKeys(account.id)).find((k) => k.label === pagesKeyLabel && k.revokedAt === null && k.readOnly && k.origins === null);
  let listing = await find();
  if (!listing) {
    await catalog.createKey(account.name, { readOnly: true, label: pagesKeyLabel });
    listing = (await find())!;
  }
  return { id: listing.id, account, readOnly: true, revoked: false, origins: null };
}
