import { maxKeptDays, type Config } from '../config.js';
import { errors } from '../errors.js';
import type { KeepChoice, Retention, Scraper } from '../store/types.js';

/** The operator's retention: the default of every scraper, and the most versions an owner may choose. */
export type RetentionSettings = Pick<Config, 'keepVersions' | 'keepDays' | 'maxKeepVersions'>;

/** What the scraper keeps: its owner's choice where made, the operator's default elsewhere, never beyond the operator's maximum. */
export function retentionOf(scraper: Pick<Scraper, 'keep'>, settings: RetentionSettings): Retention {
  return {
    versions: Math.min(scraper.keep.versions ?? settings.keepVersions, settings.maxKeepVersions),
    days: scraper.keep.days ?? settings.keepDays,
  };
}

/** An owner's choice, checked: versions from 1 to the operator's maximum, days from 0 (no age limit) to ten years. Null keeps the default. */
export function checkKeepChoice(choice: Partial<KeepChoice>, settings: RetentionSettings): Partial<KeepChoice> {
  const within = (n: number | null | undefined, min: number, max: number) =>
    n === null || n === undefined || (Number.isInteger(n) && n >= min && n <= max);
  if (!within(choice.versions, 1, settings.maxKeepVersions) || !within(choice.days, 0, maxKeptDays))
    throw errors.keepInvalid(settings.maxKeepVersions, maxKeptDays);
  return choice;
}
