import type { FastifyReply } from 'fastify';
import type { SafeHtml } from '../views/html.js';
import { errorCodeHeader, type SiphonError } from '../errors.js';

/**
 * Scripts, styles and API calls from this origin only: a second line of defence should scraper data
 * ever slip into a page unescaped. No inline script or style is used anywhere.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sends a rendered page. `no-cache`: the download counts and chart must show a call made a moment
 * ago, so a browser always asks again. A page answering an error (404, 400) names the error's code
 * in the same header as the API's errors, so a program can tell it apart from the page it wanted.
 */
export function sendPage(reply: FastifyReply, status: number, page: SafeHtml, error?: SiphonError): void {
  if (error) void reply.header(errorCodeHeader, error.code);
  if (error?.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  void reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': contentSecurityPolicy,
      'referrer-policy': 'same-origin',
    })
    .send(page.text);
}
