import { formatParamNames, versionParamName } from '../formats/index.js';
import { namedPrefix } from '../sql/named-params.js';
import { pairName, pairValue, percentDecode, queryStart } from '../utils/query-string.js';

/**
 * Parameters known to hold no secret, the data API's (with those the formats take) and the pages':
 * logged (and, in the links a format writes, echoed) as sent. Every other parameter is not, whatever its
 * name: a key can come as `key`, `%6Bey`, `KEY`, `api_key`, or under a name no one thought of.
 */
const publicParams = new Set(['query', versionParamName, ...formatParamNames, 'table', 'sql', 'format', 'q', 'scraper']);

/**
 * Whether a parameter (by decoded name) is one of those known to hold no secret: a `:named` value
 * is one too, data for the query as the query itself is (a value that looks like a key is still
 * redacted, as in any parameter).
 */
export function isPublicParam(decodedName: string): boolean {
  return publicParams.has(decodedName) || decodedName.startsWith(namedPrefix);
}

/** Names shown before `=[redacted]`, so a log still tells that a key was sent in the URL. */
const keyParams = new Set(['key', 'api_key']);

/** Whether a parameter (by decoded name, in any case) is meant to hold a key. */
function isKeyParam(decodedName: string): boolean {
  return keyParams.has(decodedName.toLowerCase());
}

/**
 * Whether decoded text holds what looks like a key (`sph_…`, in any case): such a path segment or
 * value is replaced wherever it is, even in a parameter known to hold no secret (a client may send
 * `query=…;key=sph_…`, taking `;` for a separator, which it is not).
 */
const looksLikeKey = (decoded: string) => /sph_/i.test(decoded);

function redactSegment(segment: string): string {
  return looksLikeKey(percentDecode(segment)) ? '[redacted]' : segment;
}

/** A logged path or value is cut after this many characters: a 100,000-character query need not fill the log. */
const maxLoggedChars = 1000;

function cut(text: string): string {
  return text.length <= maxLoggedChars ? text : `${text.slice(0, maxLoggedChars)}…[${text.length - maxLoggedChars} more]`;
}

/**
 * The URL with every value that could be a key replaced, and long values cut, for logs. It runs for
 * every request, so the common case takes the short way: a path that decoded holds no key is kept
 * whole (`sph_` holds no `/`, so no segment of it does either), and a value is only decoded when its
 * parameter is one kept as sent.
 */
export function redactUrl(url: string): string {
  const start = queryStart(url);
  const rawPath = start === -1 ? url : url.slice(0, start);
  const path = cut(looksLikeKey(percentDecode(rawPath)) ? rawPath.split('/').map(redactSegment).join('/') : rawPath);
  if (start === -1) return path;
  let redacted = `${path}${url[start]}`;
  let first = true;
  for (const raw of url.slice(start + 1).split('&')) {
    if (!first) redacted += '&';
    first = false;
    const name = pairName(raw);
    if (isPublicParam(name) && !looksLikeKey(pairValue(raw))) redacted += cut(raw);
    else redacted += isKeyParam(name) ? `${name.toLowerCase()}=[redacted]` : '[redacted]';
  }
  return redacted;
}
