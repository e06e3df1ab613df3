import type { publishErrors } from '../../errors/publish.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/publish.ts. */
export const publishErrorDocs: ErrorDocs<typeof publishErrors> = {
  importTimeout: {
    example: [300],
    area: 'manage',
    when: 'importing a published database (copying and checking it) took longer than `--import-timeout` and was stopped; nothing was changed',
  },
  importResources: {
    example: [],
    area: 'manage',
    when: 'importing a published database needed more memory than an import may have and was stopped; nothing was changed',
  },
};
