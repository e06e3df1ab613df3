/**
 * Bytes one character of SQL can take once percent-encoded in a URL or form body. The limit counts
 * UTF-16 code units (JavaScript's `length`): a character from U+0800 to U+FFFF is 3 bytes of UTF-8,
 * each written `%XX`, so 9 bytes for one unit; a character beyond U+FFFF is 2 units for 4 bytes
 * (12 bytes, 6 a unit); ASCII is at most 3.
 */
const maxEncodedBytesPerChar = 9;
/** The rest of a data URL or form body: path, key, callback, other parameters, all percent-encoded. */
const otherParamsBytes = 8 * 1024;
/** Header fields (besides the request line): Node's own default for the whole head. */
const maxHeaderFieldBytes = 16 * 1024;
/** A name between slashes (a path parameter): the longest scraper name; a longer one names nothing. */
export const maxPathSegmentChars = 100;

export interface RequestLimits {
  /** The longest URL (request target): any SQL of `maxQueryChars`, however encoded, fits. */
  maxUrlBytes: number;
  /** Header fields without the request line. */
  maxHeaderFieldBytes: number;
  /** Node's bound on the request line and headers together (`maxHeaderSize`), past which its parser refuses the request. */
  maxHeadBytes: number;
  /** A data query's POST body: as much as the same parameters in a URL. */
  maxBodyBytes: number;
}

/** Derived from the SQL limit, so that a query up to it always works in a GET, and nothing larger is read. */
export function requestLimits(maxQueryChars: number): RequestLimits {
  const maxUrlBytes = maxQueryChars * maxEncodedBytesPerChar + otherParamsBytes;
  return { maxUrlBytes, maxHeaderFieldBytes, maxHeadBytes: maxUrlBytes + maxHeaderFieldBytes, maxBodyBytes: maxUrlBytes };
}
