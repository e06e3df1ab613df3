import { errors } from '../errors.js';
import { parseOrigin } from '../origins.js';
import type { NewKey } from '../store/types.js';

/** What a new key is for and where it may be used. */
export interface KeyOptions {
  /** Shown in `key list` to tell keys apart; none by default. */
  label?: string;
  /** Can query but never publish. */
  readOnly?: boolean;
  /** Web origins it may be used from only (`https://maps.example.org`); such a key is always read-only. */
  origins?: readonly string[];
}

/** Labels are shown one key a line, so they hold no line breaks, and are kept short. */
const maxLabelChars = 100;
const controlCharacter = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The key as it is stored, less its prefix: options checked, origins normalised. */
export function checkKeyOptions(options: KeyOptions): Omit<NewKey, 'prefix'> {
  const label = options.label ?? '';
  if (label.length > maxLabelChars || controlCharacter.test(label)) throw errors.keyLabelInvalid(maxLabelChars);
  let origins: string[] | null = null;
  if (options.origins && options.origins.length > 0) {
    origins = [];
    for (const text of options.origins) {
      const parsed = parseOrigin(text);
      if ('problem' in parsed) throw errors.keyOriginInvalid(text, parsed.problem);
      if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
    }
  }
  // A key meant to be seen in a web page's code must never be able to change data.
  return { label, readOnly: (options.readOnly ?? false) || origins !== null, origins };
}
