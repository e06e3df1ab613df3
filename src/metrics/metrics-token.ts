import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether an `Authorization` header carries the metrics token as `Bearer <token>`. Compared as
 * SHA-256 digests with timingSafeEqual: equal lengths whatever was sent, and no early exit that
 * would tell a client how much of its guess was right.
 */
export function hasMetricsToken(authorization: string | undefined, token: string): boolean {
  const sent = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
  return sent !== undefined && timingSafeEqual(digest(sent), digest(token));
}
