import type { serviceErrors } from '../../errors/service.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/service.ts. */
export const serviceErrorDocs: ErrorDocs<typeof serviceErrors> = {
  storageFull: {
    example: [],
    area: 'manage',
    when: 'a publish (or `scraper add`/`publish` in the CLI) found the disk full, or would have taken the free space the server keeps on it (`--disk-reserve-mb`); nothing was changed and the old data keeps serving',
  },
  busy: {
    example: [],
    area: 'query',
    when: 'more queries are waiting for a query process than the queue holds (`--queue-limit`); answered at once, with `Retry-After`',
  },
  queueTimeout: {
    example: [30],
    area: 'query',
    when: 'the query waited longer than `--queue-timeout` for a query process; with `Retry-After`',
  },
  downloadsBacklog: {
    example: [],
    area: 'query',
    when: "downloads cannot be written (the server's disk is full?) and the backlog held in memory is full, so the call is refused before anything runs rather than served unrecorded; `Retry-After: 30`",
  },
  unavailable: { example: [], area: 'query', when: 'the service is stopping or has no query process ready' },
  internal: { example: [], area: 'query', when: 'a fault of ours; it is logged' },
};
