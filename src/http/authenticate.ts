import type { IncomingHttpHeaders } from 'node:http';
import { errors } from '../errors.js';
import { hashKey } from '../keys.js';
import type { AccountStore, ApiKey } from '../store/types.js';

/** The key from `X-API-Key` or `Authorization: Bearer`; undefined when neither header is sent. */
function headerKey(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey.trim();
  const bearer = /^Bearer[ \t]+(.*)$/i.exec(headers.authorization ?? '');
  return bearer ? bearer[1]!.trim() : undefined;
}

/** Whether the caller sent a key at all, in a header or the `key` parameter. */
export function sentKey(headers: IncomingHttpHeaders, keyParam: string | undefined): boolean {
  return headerKey(headers) !== undefined || keyParam !== undefined;
}

/**
 * Finds the caller's key; where it may be used from is the next step's (key-origin.ts). A header
 * wins over the `key` parameter, as on morph.io: a bad header key is refused even when the
 * parameter holds a good one. The lookup is by hash, so the comparison leaks nothing about stored
 * keys through timing.
 */
export async function authenticate(headers: IncomingHttpHeaders, keyParam: string | undefined, store: AccountStore): Promise<ApiKey> {
  const key = headerKey(headers) ?? keyParam;
  if (key === undefined) throw errors.keyMissing();
  if (key === '') throw errors.keyInvalid();
  const found = await store.findKey(hashKey(key));
  if (!found) throw errors.keyInvalid();
  if (found.revoked) throw errors.keyRevoked();
  return found;
}
