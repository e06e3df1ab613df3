import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt with N = 2^15, r = 8, p = 3: one of OWASP's equivalent minimum settings (the Password
 * Storage Cheat Sheet lists N = 2^17 with p = 1, or N = 2^15 with p = 3, for the same cost). It takes
 * 32 MiB (128 · N · r bytes) per hash rather than 128 MiB: node:crypto runs hashes on libuv's four
 * threads, so four sign-ins at once hold 128 MiB, not 512, on a small server. p runs in sequence, so
 * each hash costs about three times N = 2^15 alone (~0.2 s on one core of a 2-core machine).
 */
const params = { N: 2 ** 15, r: 8, p: 3 } as const;
const keyBytes = 32;
const saltBytes = 16;

/** Passwords are checked as whole Unicode text, never trimmed. */
export const minPasswordChars = 10;
/** scrypt hashes any length at the same cost; the bound keeps request bodies small. */
export const maxPasswordChars = 200;

/** Whether a password may be set: long enough to resist guessing, short enough to be a password. */
export function isAcceptablePassword(password: string): boolean {
  const chars = [...password].length;
  return chars >= minPasswordChars && chars <= maxPasswordChars;
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // maxmem: Node refuses above 32 MiB by default, which is exactly what these parameters need.
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyBytes, { ...options, maxmem: 128 * options.N! * options.r! + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/**
 * The text stored: `scrypt$N$r$p$salt$hash` (salt and hash base64url), so that hashes made with
 * other parameters stay readable if the parameters are raised later.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; false for anything that is not such a hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of a password nobody has, checked when an account does not exist or has no password, so a
 * sign-in takes as long whether the name is known or not.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}
