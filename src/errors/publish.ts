import { make } from './siphon-error.js';

/** Publishing: a database sent that is too costly to check. */
export const publishErrors = {
  importTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_IMPORT_TIMEOUT',
      400,
      `Checking the database took longer than the ${seconds} s limit and was stopped (expensive views, generated columns or virtual tables?). Nothing was changed.`,
    ),
  importResources: () =>
    make(
      'SIPHON_ERR_IMPORT_RESOURCES',
      400,
      'Checking the database needed more memory than an import may have and was stopped. Nothing was changed.',
    ),
} as const;
