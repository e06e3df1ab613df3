import { errors } from '../errors.js';
import { formatParamNames, versionParamName } from '../formats/index.js';
import { maxDescriptionChars } from '../limits/web-forms.js';
import { checkSql } from '../sql/check-sql.js';
import { maxNamedValues, namedParamNames } from '../sql/named-params.js';
import type { SavedQuery, SavedQueryFields, SavedQueryStore } from '../store/types.js';

/**
 * @module What a saved query may be: checked before any is stored, whoever saves it (the command
 * line, the web). Its page and data URLs take its parameters by their bare names
 * (`…/queries/<name>.json?town=Leura`), so none may be a name those URLs already use.
 */

/** The most queries one scraper may have saved. */
export const maxSavedQueries = 100;
/** The longest title; the description is bounded as a scraper's is. */
export const maxTitleChars = 200;
/** A slug: lower-case letters, digits and `-`, starting with a letter or digit, at most 64 characters. */
const namePattern = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The parameters a saved query's URLs already take, which its own parameters may not be named. */
export const reservedParamNames: readonly string[] = ['key', 'query', 'api_key', versionParamName, ...formatParamNames];

/** Text of at most `max` characters with no control character but, when `lines`, line breaks. */
function isText(text: string, max: number, lines: boolean): boolean {
  const control = lines ? /[\u0000-\u0009\u000B\u000C\u000E-\u001F\u007F]/ : /[\u0000-\u001F\u007F]/;
  return text.length <= max && !control.test(text);
}

export function isSavedQueryName(name: string): boolean {
  return namePattern.test(name);
}

/**
 * The scraper's saved query of that name, if saved; a name no query can have (from an address:
 * any text, a NUL included, which PostgreSQL refuses in a parameter) is not asked of the store.
 */
export async function findSavedQuery(store: SavedQueryStore, scraperId: number, name: string): Promise<SavedQuery | undefined> {
  return isSavedQueryName(name) ? store.findQuery(scraperId, name) : undefined;
}

/**
 * The query as it is stored: a slug for a name, a title (the name when empty) and description of
 * bounded plain text, SQL that passes the data API's checks within its length limit, and parameter
 * names that do not clash with the URLs' own, as many as one call may give. Throws the client's error for the first that fails.
 */
export function checkSavedQuery(query: SavedQueryFields, maxQueryChars: number): SavedQueryFields {
  if (!isSavedQueryName(query.name)) throw errors.savedQueryNameInvalid(query.name);
  const title = query.title.trim() || query.name;
  if (!isText(title, maxTitleChars, false)) throw errors.savedQueryTextInvalid('title', maxTitleChars);
  if (!isText(query.description, maxDescriptionChars, true)) throw errors.savedQueryTextInvalid('description', maxDescriptionChars);
  const sql = checkSql(query.sql, maxQueryChars);
  const names = namedParamNames(sql);
  const clash = names.find((name) => reservedParamNames.includes(name));
  if (clash !== undefined) throw errors.savedQueryParamReserved(clash, reservedParamNames);
  // No call could give more values than this; each name is also a parameter in the scraper's OpenAPI document.
  if (names.length > maxNamedValues) throw errors.paramsTooMany(maxNamedValues);
  return { ...query, title, sql };
}
