import { hash, randomBytes } from 'node:crypto';

/**
 * API keys: 24 random bytes, URL-safe, with a prefix so secret scanners and people can recognise one.
 * Only the SHA-256 of a key is stored. A key has 192 bits of entropy, so a fast hash is enough
 * (a slow password hash protects guessable secrets, which these are not).
 */
export function newKey(): string {
  return `sph_${randomBytes(24).toString('base64url')}`;
}

/** One call, no Hash object: every API call hashes its key. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * What is kept of a key to recognise it in a list: `sph_` and 6 of its 32 random characters. The
 * other 26 (156 bits) stay unknown, so the prefix is no use for guessing the key.
 */
export function keyPrefix(key: string): string {
  return key.slice(0, 'sph_'.length + 6);
}

/** Whether `text` is a prefix as keyPrefix makes it (and never a whole key, which is far longer). */
export function isKeyPrefix(text: string): boolean {
  return /^sph_[A-Za-z0-9_-]{6}$/.test(text);
}
