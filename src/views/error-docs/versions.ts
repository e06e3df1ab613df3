import type { versionErrors } from '../../errors/versions.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/versions.ts. */
export const versionsErrorDocs: ErrorDocs<typeof versionErrors> = {
  versionInvalid: {
    example: ['latest'],
    area: 'query',
    when: '`version` on a data call, table page, twin or row page is not a whole number from 1 (see [Kept data versions](#kept-data-versions))',
  },
  versionGone: {
    example: ['alice/plants', 3, '/alice/plants/data.json?query=select+*+from+t'],
    area: 'query',
    when: '`version` names a data version that is no longer kept, or was never published; the message links to the same address without `version`, which reads the current data (a page says so as a page)',
  },
  keepInvalid: {
    example: [20, 3650],
    area: 'manage',
    when: "an owner's choice of how many versions or days to keep (`scraper keep`, the scraper's tools on the web) is out of bounds",
  },
};
