/**
 * Every error a client can be answered with, defined once with its code, status and message.
 * Routes throw these; the error renderer turns them into `{"error": "..."}` (or a JSONP callback call).
 * Codes are part of the API (docs/api.md, "Errors"): never reuse or rename one.
 */
export class SiphonError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Sent as `Retry-After`: when trying again may succeed. */
    readonly retryAfterSeconds?: number,
    /** Sent as `Allow`: the methods the path does take (405). */
    readonly allow?: readonly string[],
    /** Sent as the complete length of `Content-Range` (416): the size of the file a range was asked of. */
    readonly completeLength?: number,
  ) {
    super(message);
    this.name = 'SiphonError';
  }
}

/** The header naming an answer's error code (`SIPHON_ERR_…`), so a program can tell errors apart without reading messages. */
export const errorCodeHeader = 'siphon-error-code';

/** Each error file's one way to define an error. */
export const make = (
  code: string,
  status: number,
  message: string,
  retryAfterSeconds?: number,
  allow?: readonly string[],
  completeLength?: number,
) => new SiphonError(code, status, message, retryAfterSeconds, allow, completeLength);
