import { decodePair, percentDecode, queryStart } from './query-string.js';

/**
 * Parameters known to hold no secret, the data API's and the pages': logged (and, in a feed's self
 * link, echoed) as sent. Every other parameter is not, whatever its name: a key can come as `key`,
 * `%6Bey`, `KEY`, `api_key`, or under a name no one thought of.
 */
const publicParams = new Set(['query', 'callback', 'table', 'sql', 'format', 'q', 'scraper']);

/** Whether a parameter (by decoded name) is one of those known to hold no secret. */
export function isPublicParam(decodedName: string): boolean {
  return publicParams.has(decodedName);
}
/** Names shown before `=[redacted]`, so a log still tells that a key was sent in the URL. */
const keyParams = new Set(['key', 'api_key']);

/** Whether a parameter (by decoded name, in any case) is meant to hold a key. */
export function isKeyParam(decodedName: string): boolean {
  return keyParams.has(decodedName.toLowerCase());
}

/** A path segment holding what looks like a key (`sph_…`, in any case or encoding) is replaced too. */
function redactSegment(segment: string): string {
  return /sph_/i.test(percentDecode(segment)) ? '[redacted]' : segment;
}

/** The URL with every value that could be a key replaced, for logs. */
export function redactUrl(url: string): string {
  const start = queryStart(url);
  const path = (start === -1 ? url : url.slice(0, start)).split('/').map(redactSegment).join('/');
  if (start === -1) return path;
  const pairs = url.slice(start + 1).split('&').map((raw) => {
    const name = decodePair(raw)[0];
    if (isPublicParam(name)) return raw;
    return isKeyParam(name) ? `${name.toLowerCase()}=[redacted]` : '[redacted]';
  });
  return `${path}${url[start]}${pairs.join('&')}`;
}
