import { errors } from '../errors.js';
import type { Params } from '../utils/query-string.js';
import { sqlTokens } from './tokens.js';

/**
 * @module `:named` parameters of a query: the names its SQL uses and the values a call gives them
 * (`:town=Leura`, spelt as the SQL spells them, so no name can clash with `key`, `query` or any other
 * parameter). Values are always bound by the query process, never put into the SQL, and are text:
 * SQLite's affinity makes `'3'` the number 3 where a column holds numbers.
 */

/** The most `:named` values one call may give. */
export const maxNamedValues = 100;

/** Values by name, without the leading `:` (better-sqlite3 binds an object's members to `:member`). */
export type NamedValues = Record<string, string>;

/** How a call's parameter names a value: its own name, a `:` and then the SQL's name. */
export const namedPrefix = ':';

/**
 * The distinct `:name` parameters the SQL uses, in the order they first appear; those inside
 * strings and comments are text, not parameters. A name is ASCII letters, digits, `_` and `$`.
 */
export function namedParamNames(sql: string): string[] {
  if (!sql.includes(namedPrefix)) return [];
  const names = new Set<string>();
  let afterColon = false;
  for (const token of sqlTokens(sql)) {
    if (afterColon && token.kind === 'word') names.add(token.text);
    afterColon = token.kind === 'other' && token.text === namedPrefix;
  }
  return [...names];
}

/**
 * The `:name` values a call gives: each parameter whose name starts with `:`, its first value if
 * repeated (as every other parameter). More than maxNamedValues is a 400.
 */
export function givenValues(params: Params): NamedValues {
  const values: NamedValues = Object.create(null) as NamedValues;
  let count = 0;
  for (const [name, value] of Object.entries(params)) {
    if (!name.startsWith(namedPrefix) || value === undefined) continue;
    count += 1;
    if (count > maxNamedValues) throw errors.paramsTooMany(maxNamedValues);
    values[name.slice(namedPrefix.length)] = Array.isArray(value) ? value[0]! : value;
  }
  return values;
}

/**
 * The values to bind to the SQL: one for each name it uses (400 for any missing), none it does not
 * use (400: a misspelt name would otherwise be silently ignored), and, with the SQL, no longer than
 * `maxChars` together (400), so what is bound is bounded as the SQL is. Undefined when it uses none.
 */
export function boundValues(sql: string, given: NamedValues, maxChars: number): NamedValues | undefined {
  const used = namedParamNames(sql);
  const unused = Object.keys(given).filter((name) => !used.includes(name));
  if (unused.length > 0) throw errors.paramUnused(unused, used);
  if (used.length === 0) return undefined;
  const missing = used.filter((name) => given[name] === undefined);
  if (missing.length > 0) throw errors.paramMissing(missing);
  const chars = used.reduce((sum, name) => sum + given[name]!.length, sql.length);
  if (chars > maxChars) throw errors.paramsTooLong(maxChars);
  return Object.fromEntries(used.map((name) => [name, given[name]!]));
}
