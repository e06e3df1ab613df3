import { stringify, type Options } from 'csv-stringify/sync';
import type { Encoder } from './encoder.js';
import { textValue } from './values.js';

/**
 * RFC 4180 with LF line ends, as morph.io wrote them (every CSV reader accepts them): fields quoted
 * when they hold a comma, quote or line break. csv-stringify only quotes a field holding the record
 * delimiter (LF), so a CR is matched here too. An empty string is written as `""` so it stays
 * distinct from NULL, an empty field.
 */
const options: Options = { record_delimiter: 'unix', quoted_match: [/^$/, /[\r\n]/], eof: true };

export function csvEncoder(columns: readonly string[]): Encoder {
  return {
    // The header comes from the prepared statement, so a query with no rows still has one.
    head: () => stringify([columns], options),
    rows: (batch) => (batch.length === 0 ? '' : stringify(batch.map((row) => row.map(textValue)), options)),
    tail: () => '',
  };
}
