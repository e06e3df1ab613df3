import type { manageErrors } from '../../errors/manage.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/manage.ts. */
export const manageErrorDocs: ErrorDocs<typeof manageErrors> = {
  nameInvalid: { example: ['scraper', 'my scraper'], area: 'manage', when: 'an account or scraper name that is not allowed' },
  accountExists: { example: ['alice'], area: 'manage', when: 'creating an account whose name is taken' },
  accountNotFound: {
    example: ['alice'],
    area: 'manage',
    when: 'naming an account that does not exist (also the HTML page of an unknown account)',
  },
  keyOriginInvalid: {
    example: ['https://*.example.org', 'wildcards are not supported, list each origin'],
    area: 'manage',
    when: '`key create --origin` with something other than a web origin (scheme, host and port)',
  },
  keyLabelInvalid: {
    example: [100],
    area: 'manage',
    when: 'a key label over 100 characters or with a line break or another control character',
  },
  savedQueryNameInvalid: {
    example: ['By Suburb'],
    area: 'manage',
    when: 'saving a query (`query save`) under a name that is not a slug',
  },
  savedQueryTextInvalid: {
    example: ['title', 200],
    area: 'manage',
    when: "a saved query's title (200 characters) or description (1,000) too long, or holding control characters",
  },
  savedQueryParamReserved: {
    example: ['key', ['key', 'query']],
    area: 'manage',
    when: "a saved query's SQL names a parameter its URLs already use (`:key`, `:query`, `:version`, `:callback`, `:dl`, `:page_size`, `:next`, `:excel`)",
  },
  savedQueryExists: {
    example: ['alice/planning', 'by-suburb'],
    area: 'manage',
    when: 'saving a new query from the query builder under a name the scraper already has (`query save` replaces it)',
  },
  savedQueriesTooMany: { example: [100], area: 'manage', when: 'saving a new query when the scraper already has 100' },
  scraperExists: { example: ['alice/planning'], area: 'manage', when: 'adding a scraper that already exists' },
  dataInvalid: {
    example: ['data.db is not an SQLite database.'],
    area: 'manage',
    when: 'a published body, or a database file given to the CLI, is missing, empty, unreadable, not an SQLite database, or damaged',
  },
  dataTooLarge: { example: [536_870_912], area: 'manage', when: 'a published body is over the publish size limit (`--max-publish-mb`)' },
  contentType: {
    example: ['application/x-www-form-urlencoded or application/json'],
    area: 'query',
    when: "a published body is labelled with another `Content-Type` than the SQLite ones, or a query's POST body is neither a form nor JSON",
  },
};
