import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ContentCoding } from '../pool/compressors.js';

const codings: readonly ContentCoding[] = ['br', 'gzip', 'identity'];

/**
 * The coding a client asked for in `Accept-Encoding`: the acceptable one with the highest q-value,
 * ties going to the order the client listed them in (negotiator does the parsing, q=0, `*` and the
 * implicit `identity`). No header, an empty one, or only unknown codings: identity. When even
 * identity is refused (`identity;q=0`, `*;q=0`), identity all the same: RFC 7231 §5.3.4 says to
 * send no coding rather than fail the request.
 */
export function negotiateCoding(headers: IncomingHttpHeaders): ContentCoding {
  const asked = headers['accept-encoding'];
  if (asked === undefined) return 'identity';
  let coding = negotiated.get(asked);
  if (coding === undefined) {
    coding = (new Negotiator({ headers: { 'accept-encoding': asked } }).encoding(codings) as ContentCoding | undefined) ?? 'identity';
    negotiated.set(asked, coding);
  }
  return coding;
}

/**
 * Answers by `Accept-Encoding` value: parsing the header was a visible part of a 304's cost.
 * Clients send a handful of distinct ones; one sending a new one each time only pushes the others out.
 */
const negotiated = new LRUCache<string, ContentCoding>({ max: 64 });

/** Adds `value` to a `Vary` header that may already list other fields (CORS adds `Origin`). */
function appendVary(headers: OutgoingHttpHeaders, value: string): void {
  const current = headers.vary;
  headers.vary = current === undefined ? value : `${Array.isArray(current) ? current.join(', ') : String(current)}, ${value}`;
}

/**
 * Puts the response's headers in a given coding. `Vary: Accept-Encoding` goes on every data
 * response, identity ones too: which body a client gets depends on that header. A compressed body's
 * size is not known before it is sent, so it has no `Content-Length` (it is chunked).
 */
export function setCoding(headers: OutgoingHttpHeaders, coding: ContentCoding): void {
  appendVary(headers, 'Accept-Encoding');
  if (coding !== 'identity') {
    headers['content-encoding'] = coding;
    delete headers['content-length'];
  }
}
