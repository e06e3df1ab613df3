import { defaults } from '../../config.js';
import { maxPathSegmentChars } from '../../limits/request-size.js';
import type { requestErrors } from '../../errors/request.js';
import { exampleLimits as limits, type ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/request.ts. */
export const requestErrorDocs: ErrorDocs<typeof requestErrors> = {
  urlInvalid: {
    example: [],
    area: 'query',
    when: 'the URL cannot be decoded: a `%` not followed by two hex digits (`plan%ZZning`), or escapes that are not UTF-8',
  },
  urlTooLong: {
    example: [limits.maxUrlBytes, maxPathSegmentChars],
    area: 'query',
    when: 'the URL is over its bound (9 bytes a character of the SQL limit, plus 8 KB), or a name in its path is over 100 characters',
  },
  headersTooLarge: {
    example: [limits.maxHeaderFieldBytes, limits.maxHeadBytes],
    area: 'query',
    when: "the header fields are over 16 KB, or the request line and headers together over the URL's bound plus 16 KB",
  },
  methodNotAllowed: {
    example: [['GET', 'HEAD', 'OPTIONS', 'POST']],
    area: 'query',
    when: 'a method the path does not take (a `POST` to a page, a `DELETE` of data, a `CONNECT`); `Allow` lists those it does',
  },
  requestTimeout: {
    example: [defaults.clientIdleTimeoutMs / 1000],
    area: 'query',
    when: "the request's headers did not all come within the client idle time (`--client-idle-timeout`), or its body (a POST's, a publish's) sent nothing for that long",
  },
  malformedRequest: {
    example: [],
    area: 'query',
    when: "not HTTP/1.1 that Node's parser can read: a bad request line, method, header, `Content-Length` or chunked body",
  },
  expectationFailed: { example: [], area: 'query', when: 'an `Expect` header other than `100-continue`' },
  hostInvalid: {
    example: [],
    area: 'query',
    when: 'an HTTP/1.1 request without a `Host` header, or an Atom feed asked for with a `Host` that is not a plain `host[:port]`',
  },
  bodyTooLarge: { example: [limits.maxBodyBytes], area: 'query', when: "a query's POST body is over its bound (that of the URL)" },
  bodyInvalid: {
    example: ['The body is not valid JSON.'],
    area: 'query',
    when: "a query's JSON body is not UTF-8 JSON, not an object, or has a `key`, `query` or `callback` that is not a string",
  },
  bodyIncomplete: { example: [], area: 'query', when: 'the client closed its side before the end of the body it announced' },
  rangeNotSatisfiable: {
    example: [1048576],
    area: 'query',
    when: "a `Range` on a data version's SQLite file (`data.sqlite`) that starts at or past its end, or a suffix of 0 bytes; answered with `Content-Range: bytes */N` ([Byte ranges](#byte-ranges-of-the-sqlite-file))",
  },
  clientClosed: {
    example: [],
    area: 'query',
    when: 'never sent (the client is gone): logged for a request whose client left before its answer',
  },
  badRequest: {
    example: [400],
    area: 'query',
    statusVaries: true,
    when: "anything else the HTTP layer refused below 500, with the status it gave and a message of ours (the framework's is not passed on)",
  },
};
