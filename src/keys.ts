import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys: 24 random bytes, URL-safe, with a prefix so secret scanners and people can recognise one.
 * Only the SHA-256 of a key is stored. A key has 192 bits of entropy, so a fast hash is enough
 * (a slow password hash protects guessable secrets, which these are not).
 */
export function newKey(): string {
  return `sph_${randomBytes(24).toString('base64url')}`;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
