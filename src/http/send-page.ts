import type { FastifyReply } from 'fastify';
import type { SafeHtml } from '../views/html.js';

/**
 * Scripts, styles and API calls from this origin only: a second line of defence should scraper data
 * ever slip into a page unescaped. No inline script or style is used anywhere.
 */
const contentSecurityPolicy = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
].join('; ');

/**
 * Sends a rendered page. `no-cache`: the download counts and chart must show a call made a moment
 * ago, so a browser always asks again.
 */
export function sendPage(reply: FastifyReply, status: number, page: SafeHtml): void {
  void reply.code(status).headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'content-security-policy': contentSecurityPolicy,
    'referrer-policy': 'same-origin',
  }).send(page.text);
}
