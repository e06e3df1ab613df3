import { defaults } from '../../config.js';
import type { SiphonError } from '../../errors.js';
import { requestLimits } from '../../limits/request-size.js';

export type Area = 'query' | 'manage' | 'web';

/** The request bounds of a server with the default SQL limit, for the examples. */
export const exampleLimits = requestLimits(defaults.maxQueryChars);

type Factory = (...args: never[]) => SiphonError;

export interface ErrorDoc<F extends Factory> {
  /** Arguments for an example of the message a client gets. */
  example: Parameters<F>;
  /** Markdown, as docs/api.md shows it. */
  when: string;
  /** `query`: answered by the data API; `manage`: by publishing and the command line; `web`: by the site's account pages and forms. */
  area: Area;
  /** The status is the one the HTTP layer gave (4xx), not a fixed one. */
  statusVaries?: true;
}

/** One entry per error of a file of src/errors/, typed so that tsc fails when one is added there without being documented. */
export type ErrorDocs<Errors extends Record<string, Factory>> = { [K in keyof Errors]: ErrorDoc<Errors[K]> };
