import type { FastifyReply } from 'fastify';
import fresh from 'fresh';
import { LRUCache } from 'lru-cache';
import { hash as cryptoHash } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Scraper } from '../store/types.js';
import type { ContentCoding } from '../pool/compressors.js';

/** Status recorded for a download answered from the client's cache. */
export const notModifiedStatus = 304;

/** What shapes a body besides the data: a query job's format, encoder options and SQL, or a file's format. */
export interface BodyShape {
  format: string;
  options?: unknown;
  sql?: string;
  /** The values bound to the SQL's parameters. */
  params?: unknown;
  /** The body is a data version's file as it is (the `sqlite` format), the same bytes at every request while the version is kept. */
  fileBytes?: true;
}

/**
 * ETag hashes by the text they hash, each made once per distinct call and data version: hashing
 * was a tenth of a 304's CPU. Bounded by count and by the text they hold (queries can be long).
 */
const hashes = new LRUCache<string, string>({ max: 4096, maxSize: 4 * 1024 * 1024, sizeCalculation: (_, text) => text.length });

/**
 * Adds the response's validators to its headers:
 *
 * - `ETag`: a hash of the scraper, its data version and file (a publish changes it at once), and
 *   `shape`, everything that shapes the body: the query's format, SQL, the values bound to it and the
 *   format's options (a JSONP callback, a feed's URLs), or just the format for a file. It never holds the key. The
 *   coding is a suffix (`-gzip`, `-br`), so a cache can never match a validator to a stored
 *   response in another coding. Weak (`W/`): the same data and job give the same rows, but not
 *   always the same bytes (`random()`, the clock), and compressed bytes depend on how the rows
 *   were chunked. Strong for a file sent as it is (`fileBytes`, identity): the same bytes, byte for
 *   byte, the validator `If-Range` takes (byte-range.ts).
 * - `Last-Modified`: when the data last changed, to the second (HTTP dates have no finer unit).
 */
export function addValidators(headers: OutgoingHttpHeaders, scraper: Scraper, shape: BodyShape, coding: ContentCoding): void {
  const { data } = scraper;
  // One value a line (JSON has no raw line break), the SQL last: it is the only one that can hold one.
  const text = `${scraper.id}\n${data.version}\n${data.file}\n${shape.format}\n${JSON.stringify(shape.options ?? null)}\n${JSON.stringify(shape.params ?? null)}\n${shape.sql ?? ''}`;
  let hash = hashes.get(text);
  if (hash === undefined) {
    hash = cryptoHash('sha256', text, 'base64url').slice(0, 27); // 162 bits: collisions are out of reach
    hashes.set(text, hash);
  }
  const weak = shape.fileBytes && coding === 'identity' ? '' : 'W/';
  headers.etag = `${weak}"${hash}${coding === 'identity' ? '' : `-${coding}`}"`;
  headers['last-modified'] = lastModified(data);
}

/** A data version's `Last-Modified`, made once per version: parsing and formatting a date on every request showed in profiles. */
const lastModifiedTexts = new WeakMap<Scraper['data'], string>();

function lastModified(data: Scraper['data']): string {
  let text = lastModifiedTexts.get(data);
  if (text === undefined) lastModifiedTexts.set(data, (text = new Date(data.updatedAt).toUTCString()));
  return text;
}

/**
 * Whether the client's cached copy is still current (RFC 9110 §13.1.2–13.1.3, via `fresh`):
 * `If-None-Match` (`*`, a list, weak comparison) wins over `If-Modified-Since`, which is ignored
 * when malformed. Only those two headers are passed on: `fresh` would answer in full any request
 * with `Cache-Control: no-cache`, but that directive asks caches to revalidate with us (RFC 9111
 * §5.2.1.4), which is what a conditional request is, and fetch() adds it to every request that
 * carries its own If-None-Match.
 */
export function isNotModified(request: IncomingHttpHeaders, response: OutgoingHttpHeaders): boolean {
  return fresh(
    { 'if-none-match': request['if-none-match'], 'if-modified-since': request['if-modified-since'] },
    { etag: response.etag, 'last-modified': response['last-modified'] },
  );
}

/** Headers that describe the body itself, which a 304 has none of (RFC 9110 §15.4.5). */
const bodyHeaders = new Set(['content-type', 'content-length', 'content-encoding', 'content-disposition']);

/**
 * Answers 304 with the headers the full response would have had, less those describing its body.
 * Written on the raw response, as the streamed 200s are: Fastify's HEAD handling would add
 * `Content-Length: 0`, which on a 304 claims the full response is empty (RFC 9110 §8.6).
 */
export function sendNotModified(reply: FastifyReply, headers: OutgoingHttpHeaders): void {
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) if (!bodyHeaders.has(name.toLowerCase())) kept[name] = headers[name];
  reply.hijack();
  reply.raw.writeHead(notModifiedStatus, kept).end();
}
