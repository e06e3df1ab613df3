import type { rateLimitErrors } from '../../errors/rate-limits.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/rate-limits.ts. */
export const rateLimitsErrorDocs: ErrorDocs<typeof rateLimitErrors> = {
  keyBusy: {
    example: [2, 16],
    area: 'query',
    when: 'the key already has as many queries running (`--key-concurrency`) and waiting (`--key-queue`) as a key may; `Retry-After` says when to try again',
  },
  rateLimited: {
    example: [600, 12],
    area: 'query',
    when: 'the key made more requests this minute than `--rate-limit` allows; `Retry-After` and `RateLimit-Reset` say when its count starts over',
  },
  pagesRateLimited: {
    example: [120, 12],
    area: 'web',
    when: 'one visitor address asked for more table and row pages this minute than `--pages-per-minute` allows (answered as a page; `Retry-After` says when its count starts over)',
  },
};
