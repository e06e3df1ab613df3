import type { authErrors } from '../../errors/auth.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/auth.ts. */
export const authErrorDocs: ErrorDocs<typeof authErrors> = {
  keyMissing: { example: [], area: 'query', when: 'no key in the headers or the query string' },
  keyInvalid: { example: [], area: 'query', when: 'the key is empty or unknown' },
  keyRevoked: { example: [], area: 'query', when: 'the key was revoked' },
  metricsToken: {
    example: [],
    area: 'manage',
    when: '`/metrics` on the public port without the metrics token (`--metrics-token`) in `Authorization: Bearer`',
  },
  keyOrigin: {
    example: ['https://elsewhere.example'],
    area: 'query',
    when: 'a key made with `--origin`, used from a page of another origin, or by a request with neither an `Origin` nor a `Referer` header (see [Keys for web pages](#keys-for-web-pages))',
  },
  keyReadOnly: { example: [], area: 'manage', when: 'a publish with a key created read-only' },
  forbidden: { example: ['alice/planning'], area: 'manage', when: "a publish with a key of another account than the scraper's owner" },
};
