import { reservedAccountNames } from '../utils/names.js';
import { make } from './siphon-error.js';

/** Managing accounts, keys and scrapers: the command line, and publishing over HTTP. */
export const manageErrors = {
  nameInvalid: (what: string, name: string) =>
    make(
      'SIPHON_ERR_NAME_INVALID',
      400,
      `${JSON.stringify(name)} is not a valid ${what} name: use letters, digits, '_' and '-'${what === 'scraper' ? " (and '.', not ending in .json)" : ` (not ${reservedAccountNames.join(', ')}: pages of the site)`}.`,
    ),
  accountExists: (name: string) => make('SIPHON_ERR_ACCOUNT_EXISTS', 409, `An account named ${name} already exists.`),
  accountNotFound: (name: string) => make('SIPHON_ERR_ACCOUNT_NOT_FOUND', 404, `There is no account named ${name}.`),
  keyOriginInvalid: (text: string, problem: string) =>
    make(
      'SIPHON_ERR_KEY_ORIGIN_INVALID',
      400,
      `${JSON.stringify(text.slice(0, 200))} is not a web origin: ${problem}. Give the scheme, host and port only, such as https://maps.example.org or http://localhost:8080.`,
    ),
  keyLabelInvalid: (maxChars: number) =>
    make(
      'SIPHON_ERR_KEY_LABEL_INVALID',
      400,
      `A key's label is text of at most ${maxChars} characters, without line breaks or other control characters.`,
    ),
  savedQueryNameInvalid: (name: string) =>
    make(
      'SIPHON_ERR_SAVED_QUERY_NAME_INVALID',
      400,
      `${JSON.stringify(name.slice(0, 100))} is not a valid saved query name: use lower-case letters, digits and '-', starting with a letter or digit, at most 64 characters.`,
    ),
  savedQueryTextInvalid: (what: string, maxChars: number) =>
    make(
      'SIPHON_ERR_SAVED_QUERY_TEXT_INVALID',
      400,
      `A saved query's ${what} is text of at most ${maxChars} characters, without control characters${what === 'title' ? ' or line breaks' : ''}.`,
    ),
  savedQueryParamReserved: (name: string, reserved: readonly string[]) =>
    make(
      'SIPHON_ERR_SAVED_QUERY_PARAM_RESERVED',
      400,
      `A saved query's parameters are given by name in its URLs, so none may be called :${name}: rename it (not ${reserved.join(', ')}).`,
    ),
  savedQueryExists: (fullName: string, name: string) =>
    make(
      'SIPHON_ERR_SAVED_QUERY_EXISTS',
      409,
      `${fullName} already has a saved query named ${name}: choose another name, or change that one on its edit page.`,
    ),
  savedQueriesTooMany: (max: number) =>
    make('SIPHON_ERR_SAVED_QUERIES_TOO_MANY', 409, `A scraper can have at most ${max} saved queries: delete one before saving another.`),
  scraperExists: (fullName: string) =>
    make('SIPHON_ERR_SCRAPER_EXISTS', 409, `Scraper ${fullName} already exists; use publish to replace its data.`),
  dataInvalid: (why: string) => make('SIPHON_ERR_DATA_INVALID', 400, why),
  dataTooLarge: (maxBytes: number) =>
    make('SIPHON_ERR_DATA_TOO_LARGE', 413, `The database is larger than the publish limit of ${maxBytes} bytes.`),
  /** `accepted` says what to send; what was sent is not echoed (the rule for every header). */
  contentType: (accepted: string) =>
    make('SIPHON_ERR_CONTENT_TYPE', 415, `The body's Content-Type is not one this endpoint reads. Send it as ${accepted}.`),
} as const;
