import { make } from './siphon-error.js';

/** Kept data versions: naming one (`version=`), and an owner's choice of how many to keep. */
export const versionErrors = {
  versionInvalid: (text: string) =>
    make(
      'SIPHON_ERR_VERSION_INVALID',
      400,
      `version must be the id of a data version, a whole number from 1 as the scraper's page lists them, not ${JSON.stringify(text.slice(0, 40))}.`,
    ),
  /** `current` is the same address without `version` (and without a key): the current data. */
  versionGone: (fullName: string, version: number, current: string) =>
    make(
      'SIPHON_ERR_VERSION_GONE',
      410,
      `Version ${version} of ${fullName} is not kept (it was retired, or never published). The current data is at ${current}`,
    ),
  keepInvalid: (maxVersions: number, maxDays: number) =>
    make(
      'SIPHON_ERR_KEEP_INVALID',
      400,
      `Keep from 1 to ${maxVersions} versions, and for 0 (no age limit) to ${maxDays} days; or the default.`,
    ),
} as const;
