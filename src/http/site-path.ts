/**
 * Where a request may send a browser on (a sign-in's `next`): a path of this site, never another site,
 * and always something a `Location` header can carry.
 *
 * The value is read as a browser reads a link: by the URL standard's parser, which drops tabs and
 * line breaks, takes `\` for `/` and `//host` for another site (`/%09/evil.example/` sent as
 * `/\t/evil.example/` is `//evil.example/` to a browser). What resolves to this site's origin is kept
 * as its path, query and fragment, in the parser's percent-encoded spelling: ASCII only, so no byte
 * Node refuses in a header (CR, LF, U+3000, `名前`) reaches one. Anything else is not a path of this site.
 */

/** Stands for this site when it has no origin of its own to resolve against (a Host header that is no host). */
const placeholderOrigin = 'http://site.invalid';

/** Longer targets are not followed: a crafted link could otherwise make every redirect a header of any size. */
export const maxSitePathChars = 2048;

/**
 * The path on this site `value` names, resolved against `origin` (the site's own, as the browser
 * sees it), or undefined when it names none (another site, another scheme, or nothing).
 */
export function sitePath(value: string | undefined, origin: string | undefined): string | undefined {
  if (!value) return undefined;
  const base = origin ?? placeholderOrigin;
  let url: URL;
  try {
    url = new URL(value, `${base}/`);
  } catch {
    return undefined;
  }
  if (url.origin !== new URL(base).origin) return undefined;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//evil.example` resolves to the path `//evil.example`, which a browser reads as another site.
  if (path.startsWith('//') || path.length > maxSitePathChars) return undefined;
  return path;
}
