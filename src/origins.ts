/**
 * Web origins, as a key limited to some web sites lists them and as browsers send them (the Origin
 * header): scheme, host and port only, in the one spelling the URL standard gives them, so that a
 * stored origin and a browser's header compare equal as text (`HTTPS://A.example:443/` is
 * `https://a.example`, an international name is in punycode).
 */

/** The origin `text` names, or why it names none. */
export function parseOrigin(text: string): { origin: string } | { problem: string } {
  // The URL parser takes `*` as part of a host name; a pattern would make every look-up a match.
  if (text.includes('*')) return { problem: 'wildcards are not supported, list each origin' };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { problem: 'it is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'only http and https origins are web pages' };
  if (url.username !== '' || url.password !== '') return { problem: 'an origin has no user name or password' };
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') return { problem: 'an origin has no path, query or fragment' };
  return { origin: url.origin };
}
