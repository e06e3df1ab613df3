import { make } from './siphon-error.js';

/** 429: one key (or address) asking too much, so that it cannot slow down everyone else. */
export const rateLimitErrors = {
  keyBusy: (running: number, waiting: number) =>
    make(
      'SIPHON_ERR_KEY_BUSY',
      429,
      `This key already has ${running} queries running and ${waiting} waiting. Wait for them to finish before sending more.`,
      1,
    ),
  rateLimited: (perMinute: number, retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_RATE_LIMITED',
      429,
      `This key made more than ${perMinute} requests in a minute. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    ),

  pagesRateLimited: (perMinute: number, retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_PAGES_RATE_LIMITED',
      429,
      `This address asked for more than ${perMinute} table pages in a minute. Try again in ${retryAfterSeconds} s, or use the API with a key.`,
      retryAfterSeconds,
    ),
} as const;
