import type { FastifyReply } from 'fastify';
import { errorCodeHeader, errorForQuery, errors, QueryFailed, SiphonError } from '../errors.js';
import { jsonpContentType } from '../formats/index.js';
import { jsonString } from '../formats/values.js';
import { corsHeaders } from './cors.js';
import { noteRequest } from './request-log.js';

/**
 * Any thrown value as the error the client sees: ours as they are, anything else as a 500. A fault
 * of ours (a 5xx) goes with the request's line, which is then logged at error level with its stack.
 */
export function asSiphonError(err: unknown, reply: FastifyReply): SiphonError {
  if (err instanceof QueryFailed) {
    if (err.failure.kind === 'internal' || err.failure.kind === 'columns') noteRequest(reply.request, { err });
    return errorForQuery(err.failure);
  }
  if (err instanceof SiphonError) {
    if (err.status >= 500) noteRequest(reply.request, { err: err.cause ?? err });
    return err;
  }
  noteRequest(reply.request, { err });
  return errors.internal();
}

/**
 * The headers of every error answer besides CORS (which every error answer has too): its code,
 * never stored, `Retry-After`, `Allow` and `Content-Range` when the error says them.
 */
export function errorHeaders(error: SiphonError): Record<string, string> {
  const headers: Record<string, string> = {
    [errorCodeHeader]: error.code,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  if (error.allow) headers.allow = error.allow.join(', ');
  if (error.completeLength !== undefined) headers['content-range'] = `bytes */${error.completeLength}`;
  return headers;
}

export const errorContentType = 'application/json; charset=utf-8';

/** `{"error": "..."}`. Messages can echo the client's SQL; escaped as row values are, so they are safe inside HTML too. */
export function errorBody(error: SiphonError): string {
  return `{"error":${jsonString(error.message)}}`;
}

/**
 * The one error body: `{"error": "..."}` as JSON whatever the format. A JSONP call gets 200 and the
 * error handed to its callback, because browsers do not run a script served with an error status.
 */
export function sendError(reply: FastifyReply, err: unknown, jsonpCallback?: string): SiphonError {
  const error = asSiphonError(err, reply);
  answerError(reply, error, jsonpCallback);
  return error;
}

/** sendError for an error already made ours by asSiphonError (which notes a fault of ours once). */
export function answerError(reply: FastifyReply, error: SiphonError, jsonpCallback?: string): void {
  noteRequest(reply.request, { status: error.status, code: error.code });
  // CORS too, so a page calling the API with fetch() can read why its call failed. A key limited to
  // some origins has named the caller's already (key-origin.ts): that stays.
  if (!reply.hasHeader('access-control-allow-origin')) void reply.headers(corsHeaders);
  void reply.headers(errorHeaders(error));
  if (jsonpCallback) {
    void reply
      .code(200)
      .type(jsonpContentType)
      .send(`/**/${jsonpCallback}({"error":${jsonString(error.message)},"status":${error.status}});`);
  } else {
    void reply.code(error.status).type(errorContentType).send(errorBody(error));
  }
}
