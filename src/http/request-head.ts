import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { maxPathSegmentChars, type RequestLimits } from '../limits/request-size.js';

/** The bytes of the header fields as sent: each `name: value\r\n`. */
function headerFieldBytes(rawHeaders: readonly string[]): number {
  let bytes = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) bytes += rawHeaders[i]!.length + rawHeaders[i + 1]!.length + 4;
  return bytes;
}

/**
 * Refuses a request whose URL or headers are over their own bounds though the two together passed
 * Node's (which cannot tell them apart), and an HTTP/1.1 request without a Host header, which
 * RFC 9112 says must get a 400 (Node's own check answers with an empty body, so it is turned off).
 */
export function checkRequestHead(request: FastifyRequest, limits: RequestLimits): void {
  const raw = request.raw;
  if (raw.url !== undefined && raw.url.length > limits.maxUrlBytes) throw errors.urlTooLong(limits.maxUrlBytes, maxPathSegmentChars);
  if (headerFieldBytes(raw.rawHeaders) > limits.maxHeaderFieldBytes)
    throw errors.headersTooLarge(limits.maxHeaderFieldBytes, limits.maxHeadBytes);
  if (raw.httpVersion === '1.1' && raw.headers.host === undefined) throw errors.hostInvalid();
}
