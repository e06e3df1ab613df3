/**
 * CORS for the data API, so a web page on any origin can `fetch()` data with its key in the
 * X-API-Key header (morph.io had none, which left browsers with JSONP only). `*` is safe here:
 * a call is authorised by its key alone, never by cookies, so no credentials are involved.
 */
/** `Range` and `If-Range`: a page may continue a download of the SQLite file (http/byte-range.ts). */
export const corsAllowHeaders = 'X-API-Key, Authorization, If-None-Match, If-Modified-Since, Range, If-Range, Content-Type';
/** A POST carries a long query, or keeps the key out of the URL. */
export const corsAllowMethods = 'GET, HEAD, POST, OPTIONS';
/**
 * Headers a page's script may read besides the CORS-safelisted ones (Content-Type, Content-Length…):
 * `Link` holds the next page's URL of a paged query or table twin; `Content-Range` and `Accept-Ranges`
 * say which bytes of the SQLite file an answer holds.
 */
export const corsExposeHeaders = 'Content-Disposition, ETag, Last-Modified, Link, Accept-Ranges, Content-Range, Siphon-Error-Code';
/** How long a browser may reuse a preflight answer; Chromium caps it at 2 hours. */
export const corsMaxAgeSeconds = 7200;
