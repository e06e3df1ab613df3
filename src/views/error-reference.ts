import { errors, type SiphonError } from '../errors.js';
import { authErrorDocs } from './error-docs/auth.js';
import { manageErrorDocs } from './error-docs/manage.js';
import { notFoundErrorDocs } from './error-docs/not-found.js';
import { pagesErrorDocs } from './error-docs/pages.js';
import { publishErrorDocs } from './error-docs/publish.js';
import { queryErrorDocs } from './error-docs/query.js';
import { rateLimitsErrorDocs } from './error-docs/rate-limits.js';
import { requestErrorDocs } from './error-docs/request.js';
import { serviceErrorDocs } from './error-docs/service.js';
import type { Area, ErrorDoc } from './error-docs/types.js';
import { versionsErrorDocs } from './error-docs/versions.js';
import { webErrorDocs } from './error-docs/web.js';

type Factories = typeof errors;

/**
 * One entry per error of src/errors.ts, each file of error-docs/ explaining one file of errors/, typed
 * so that tsc fails when an error is added there without being documented: docs/api.md and /docs
 * cannot drift from what the service answers. Codes, statuses and messages are taken from the errors
 * themselves.
 */
const docs: { [K in keyof Factories]: ErrorDoc<Factories[K]> } = {
  ...authErrorDocs,
  ...notFoundErrorDocs,
  ...queryErrorDocs,
  ...pagesErrorDocs,
  ...versionsErrorDocs,
  ...manageErrorDocs,
  ...requestErrorDocs,
  ...rateLimitsErrorDocs,
  ...webErrorDocs,
  ...publishErrorDocs,
  ...serviceErrorDocs,
};

export interface DocumentedError {
  code: string;
  /** `401`, or `4xx` when it varies. */
  status: string;
  /** Markdown, as docs/api.md shows it. */
  when: string;
  example: string;
  area: Area;
}

/** Every error, in the order src/errors.ts gathers them. */
export const errorReference: DocumentedError[] = (Object.keys(errors) as (keyof Factories)[]).map((name) => {
  const doc = docs[name];
  const error = (errors[name] as (...args: unknown[]) => SiphonError)(...(doc.example as unknown[]));
  return {
    code: error.code,
    status: doc.statusVaries ? '4xx' : String(error.status),
    when: doc.when,
    example: error.message,
    area: doc.area,
  };
});
