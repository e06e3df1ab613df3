/**
 * The one way Siphon decodes parameters, in query strings and form bodies alike, as browsers encode
 * forms (`application/x-www-form-urlencoded`): `+` is a space, `%XX` escapes are UTF-8 bytes (a
 * malformed escape is kept as it is, invalid UTF-8 becomes U+FFFD), names are decoded like values,
 * and it never throws. Authentication reads `key` from it and the logs redact by it, so
 * `%6Bey=…` is the same parameter to both.
 */

/** Parameters by decoded name; a name given more than once holds every value, in order. */
export type Params = Record<string, string | string[] | undefined>;

/**
 * Text with each run of `%XX` escapes decoded as UTF-8 bytes (invalid UTF-8 becomes U+FFFD);
 * anything else, a malformed escape included, is kept as it is.
 */
export function percentDecode(text: string): string {
  if (!text.includes('%')) return text;
  // Text whose escapes are all well formed and valid UTF-8 decodes the same either way, and
  // decodeURIComponent does it in one call instead of a buffer per run of escapes; it throws on
  // anything else, which the slow way below decodes.
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
  }
}

/** A name or a value as a form encodes it: `+` is a space, then `%XX` escapes. */
function decodePart(part: string): string {
  return percentDecode(part.includes('+') ? part.replaceAll('+', ' ') : part);
}

/** The decoded name of one `name=value` piece of a query string (`name` alone is `name=`). */
export function pairName(raw: string): string {
  const eq = raw.indexOf('=');
  return decodePart(eq === -1 ? raw : raw.slice(0, eq));
}

/** The decoded value of one `name=value` piece of a query string. */
export function pairValue(raw: string): string {
  const eq = raw.indexOf('=');
  return eq === -1 ? '' : decodePart(raw.slice(eq + 1));
}

/** The decoded name and value of one `name=value` piece of a query string. */
export function decodePair(raw: string): [name: string, value: string] {
  return [pairName(raw), pairValue(raw)];
}

/** A query string (without its `?`) or form body as parameters; also Fastify's query-string parser. */
export function parseParams(text: string): Params {
  // No prototype, so a parameter named __proto__ or constructor is just a parameter.
  const params: Params = Object.create(null) as Params;
  for (const raw of text.split('&')) {
    if (raw === '') continue;
    const [name, value] = decodePair(raw);
    const previous = params[name];
    if (previous === undefined) params[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else params[name] = [previous, value];
  }
  return params;
}

/**
 * Where the router ends a URL's path: its first `?` or `#` (as Fastify's router, find-my-way, splits
 * it); -1 when there is no query string.
 */
export function queryStart(url: string): number {
  return url.search(/[?#]/);
}

/** A URL's parameters as pairs in the order the URL gives them (for what a name-keyed record loses: the order between names). */
export function paramPairs(url: string): [string, string][] {
  const start = queryStart(url);
  if (start === -1 || url[start] === '#') return [];
  const end = url.indexOf('#', start);
  return url
    .slice(start + 1, end === -1 ? undefined : end)
    .split('&')
    .filter((raw) => raw !== '')
    .map(decodePair);
}
