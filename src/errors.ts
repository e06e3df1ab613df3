import { authErrors } from './errors/auth.js';
import { manageErrors } from './errors/manage.js';
import { notFoundErrors } from './errors/not-found.js';
import { pageErrors } from './errors/pages.js';
import { publishErrors } from './errors/publish.js';
import { queryErrors } from './errors/query.js';
import { rateLimitErrors } from './errors/rate-limits.js';
import { requestErrors } from './errors/request.js';
import { serviceErrors } from './errors/service.js';
import { versionErrors } from './errors/versions.js';
import { webErrors } from './errors/web.js';

export { errorCodeHeader, SiphonError } from './errors/siphon-error.js';
export { errorForQuery, QueryFailed, type QueryFailure } from './errors/query-failure.js';

/**
 * Every error a client can be answered with, each defined once, in the file of its concern under
 * src/errors/. Their order here is the order docs/api.md lists them in (src/views/error-reference.ts).
 */
export const errors = {
  ...authErrors,
  ...notFoundErrors,
  ...queryErrors,
  ...pageErrors,
  ...versionErrors,
  ...manageErrors,
  ...requestErrors,
  ...rateLimitErrors,
  ...webErrors,
  ...publishErrors,
  ...serviceErrors,
} as const;
