import type { FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';

/**
 * @module Byte ranges of a data version's SQLite file (RFC 9110 §14): the one answer whose bytes
 * are the same at every request of a data version (the file is never changed while kept), so a
 * download cut short can be continued. Only a GET is ranged, as §14.2 defines ranges for GET alone.
 */

/** The bytes of a file a ranged answer holds, the first and the last included. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Status of an answer holding a range of the file. */
export const partialContentStatus = 206;

/** A `bytes` range-spec: `first-last`, `first-` or `-suffix`. */
const rangeSpec = /^(\d*)-(\d*)$/;

/**
 * Whether a call asks for a range of the file at all: then the answer is the file's own bytes,
 * never compressed, whole or ranged, and its ETag is the strong one `If-Range` can name.
 */
export function asksRange(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers.range !== undefined;
}

/**
 * Whether `If-Range` (if any) names the answer as it is now: only by its strong ETag, compared
 * strongly (§13.1.5). A date is never taken: two publishes within a second share a `Last-Modified`,
 * so a date cannot say the bytes are the same; the whole file is answered instead.
 */
function ifRangeHolds(ifRange: string | undefined, etag: unknown): boolean {
  if (ifRange === undefined) return true;
  return typeof etag === 'string' && !etag.startsWith('W/') && ifRange.trim() === etag;
}

/**
 * The one range of a file of `size` bytes a call asks for (`Range: bytes=…`), or none when the whole
 * file is answered, as RFC 9110 allows a server to: no `Range`, a unit other than bytes, a header
 * that cannot be read, several ranges (rather than a multipart answer no downloader needs), or an
 * `If-Range` that no longer names the answer. `unsatisfiable` (a 416) for a range that starts at or
 * past the end, or a suffix of no bytes.
 */
export function askedRange(request: FastifyRequest, headers: OutgoingHttpHeaders, size: number): ByteRange | 'unsatisfiable' | undefined {
  const asked = request.headers.range;
  if (!asksRange(request) || asked === undefined || !ifRangeHolds(singleHeader(request.headers['if-range']), headers.etag))
    return undefined;
  const equals = asked.indexOf('=');
  if (equals < 0 || asked.slice(0, equals).trim().toLowerCase() !== 'bytes') return undefined;
  const specs = asked
    .slice(equals + 1)
    .split(',')
    .map((spec) => spec.trim())
    .filter((spec) => spec !== '');
  const spec = specs.length === 1 ? rangeSpec.exec(specs[0]!) : null;
  if (!spec || (spec[1] === '' && spec[2] === '')) return undefined;
  if (spec[1] === '') {
    const suffix = Number(spec[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const first = Number(spec[1]);
  const last = spec[2] === '' ? Infinity : Number(spec[2]);
  if (last < first) return undefined;
  if (first >= size) return 'unsatisfiable';
  return { start: first, end: Math.min(last, size - 1) };
}

/** A header Node may give as a list (it never does for `If-Range`, but the type says it could). */
function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The headers of the answer holding `range` of a file of `size` bytes, in place of the whole file's. */
export function setRange(headers: OutgoingHttpHeaders, range: ByteRange, size: number): void {
  headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  headers['content-length'] = range.end - range.start + 1;
}
