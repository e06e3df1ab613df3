import { errors } from '../errors.js';

/**
 * `version=`'s grammar: a data version's id as the scraper's page lists it, a whole number from 1
 * written without a sign or leading zeros, at most 9 digits (a publish a second would take 30 years
 * to reach them). Absent: undefined (the current data). Anything else is SIPHON_ERR_VERSION_INVALID.
 */
export function parseVersionId(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(text)) throw errors.versionInvalid(text);
  return Number(text);
}
