import type { SqliteValue } from './values.js';

/**
 * Turns a query's rows into the bytes of one format. Encoders know nothing of HTTP or keys;
 * they run inside the query process.
 */
export interface Encoder {
  /** What comes before the first row. */
  head(): string;
  rows(batch: SqliteValue[][]): string;
  /** What comes after the last row. */
  tail(): string;
}
