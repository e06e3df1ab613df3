import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { errors } from '../errors.js';
import { parseOrigin } from '../origins.js';
import type { ApiKey } from '../store/types.js';
import { corsHeaders } from './cors.js';

/**
 * The origin of the page a call comes from, as the browser tells it: the Origin header, which a
 * cross-origin fetch() always sends, else the origin of the Referer, which is all a <script> tag
 * (JSONP) sends. Undefined when the request has neither; `null` when its page has no origin to tell.
 */
function callerOrigin(headers: IncomingHttpHeaders): string | undefined {
  if (headers.origin !== undefined) return headers.origin;
  if (headers.referer === undefined) return undefined;
  try {
    return new URL(headers.referer).origin;
  } catch {
    return 'null';
  }
}

/**
 * Where a call with `key` may come from: anywhere (`*`) for a key without origins; otherwise the
 * caller's origin, which must be one of the key's. A call that does not say where it comes from is
 * refused too: any page can hide its Referer (`<script referrerpolicy="no-referrer">`), so letting
 * such calls through would let every site use the key. Programs outside a browser can send any
 * Origin they like; the limit is for keys seen in a web page's code, which is why they are read-only.
 */
function allowedOrigin(key: ApiKey, headers: IncomingHttpHeaders): string {
  if (key.origins === null) return '*';
  const sent = callerOrigin(headers);
  const parsed = sent === undefined ? undefined : parseOrigin(sent);
  if (parsed && 'origin' in parsed && key.origins.includes(parsed.origin)) return parsed.origin;
  throw errors.keyOrigin(sent);
}

/**
 * The key's origin step, the one place a call's origin is checked: throws 403 when `key` may not be
 * used from where the call comes from; otherwise the CORS headers of its answers. A key limited to
 * origins names the caller's, and the answer varies with Origin; any other key's answers allow every
 * origin.
 */
export function admitOrigin(key: ApiKey, headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const origin = allowedOrigin(key, headers);
  const cors: OutgoingHttpHeaders = Object.assign({}, corsHeaders);
  if (origin === '*') return cors;
  // Added to a copy, not in a literal after a spread: that form is V8's slow path (see data-answer.ts).
  cors['access-control-allow-origin'] = origin;
  cors.vary = 'Origin';
  return cors;
}
