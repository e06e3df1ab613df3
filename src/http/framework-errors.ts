import type { FastifyInstance } from 'fastify';
import { errors, SiphonError } from '../errors.js';
import { maxPathSegmentChars, type RequestLimits } from '../limits/request-size.js';

/**
 * What the client is answered for an error thrown while handling its request: ours as they are;
 * Fastify's own as ours, since their messages can echo the URL (and a key in it). Anything else
 * is ours to fix: logged and answered 500 by sendError.
 */
export function fromFramework(err: unknown, limits: RequestLimits): unknown {
  if (err instanceof SiphonError) return err;
  const { code, statusCode } = (err ?? {}) as { code?: unknown; statusCode?: unknown };
  if (code === 'FST_ERR_BAD_URL') return errors.urlInvalid();
  if (code === 'FST_ERR_MAX_PARAM_LENGTH') return errors.urlTooLong(limits.maxUrlBytes, maxPathSegmentChars);
  // @fastify/csrf-protection's refusals of a form without this browser's token.
  if (code === 'FST_CSRF_INVALID_TOKEN' || code === 'FST_CSRF_MISSING_SECRET') return errors.csrfInvalid();
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return errors.badRequest(statusCode);
  return err;
}

/**
 * The answer for a method no route of this URL takes: 405 with `Allow` when others do (a POST to a
 * page, a DELETE of data), else 404.
 */
export function refusalFor(app: FastifyInstance, method: string, url: string): SiphonError {
  const allow = app.supportedMethods.filter((other) => other !== method && app.findRoute({ method: other, url }) !== null);
  return allow.length > 0 ? errors.methodNotAllowed(allow) : errors.routeNotFound();
}
