import { make } from './siphon-error.js';

/**
 * The HTTP layer: requests that cannot be read as sent. No message echoes the request's URL,
 * parameters or headers, which can hold a key.
 */
export const requestErrors = {
  urlInvalid: () =>
    make(
      'SIPHON_ERR_URL_INVALID',
      400,
      'The URL cannot be read: a % must be followed by two hex digits, and the percent-encoded bytes must be UTF-8.',
    ),
  urlTooLong: (maxBytes: number, maxSegmentChars: number) =>
    make(
      'SIPHON_ERR_URL_TOO_LONG',
      414,
      `The URL is too long: at most ${maxBytes} bytes, and ${maxSegmentChars} characters in a name between slashes. Send a longer query in a POST body.`,
    ),
  headersTooLarge: (maxFieldBytes: number, maxHeadBytes: number) =>
    make(
      'SIPHON_ERR_HEADERS_TOO_LARGE',
      431,
      `The request's headers are too large: at most ${maxFieldBytes} bytes of header fields, and ${maxHeadBytes} bytes with the request line.`,
    ),
  methodNotAllowed: (allow: readonly string[]) =>
    make('SIPHON_ERR_METHOD_NOT_ALLOWED', 405, `This path does not take that method. Use ${allow.join(', ')}.`, undefined, allow),
  requestTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_REQUEST_TIMEOUT',
      408,
      `The request did not arrive in time: its headers took longer than ${seconds} s, or its body sent nothing for ${seconds} s.`,
    ),
  malformedRequest: () =>
    make(
      'SIPHON_ERR_MALFORMED_REQUEST',
      400,
      'The request is not valid HTTP/1.1: its request line, a header or its chunked body could not be read.',
    ),
  expectationFailed: () => make('SIPHON_ERR_EXPECTATION', 417, 'The only Expect header understood is Expect: 100-continue.'),
  hostInvalid: () => make('SIPHON_ERR_HOST_INVALID', 400, 'The Host header is missing or not a valid host[:port].'),
  bodyTooLarge: (maxBytes: number) =>
    make('SIPHON_ERR_BODY_TOO_LARGE', 413, `The request body is larger than the ${maxBytes} bytes accepted.`),
  bodyInvalid: (why: string) => make('SIPHON_ERR_BODY_INVALID', 400, why),
  bodyIncomplete: () => make('SIPHON_ERR_BODY_INCOMPLETE', 400, 'The request body ended before it was complete.'),
  rangeNotSatisfiable: (size: number) =>
    make(
      'SIPHON_ERR_RANGE_NOT_SATISFIABLE',
      416,
      `The range asked for starts past the end of the file, which has ${size} bytes: Content-Range gives its length.`,
      undefined,
      undefined,
      size,
    ),
  /** Never sent (the client is gone): logged as the outcome of a request whose client left first. */
  clientClosed: () => make('SIPHON_ERR_CLIENT_CLOSED', 499, 'The client closed the connection before it was answered.'),
  /** Anything else the HTTP layer refused below 500, with its status; the framework's message is not passed on. */
  badRequest: (status: number) => make('SIPHON_ERR_BAD_REQUEST', status, 'The request cannot be handled as it was sent.'),
} as const;
