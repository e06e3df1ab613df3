import type { Encoder } from './encoder.js';
import { integerText, realText, type SqliteValue } from './values.js';

/** A field holding one of these is quoted, its quotes doubled. */
const needsQuotes = /[",\r\n]/;
const quote = /"/g;

/**
 * A text field as RFC 4180 writes it: quoted when it holds a comma, quote, CR or LF, quotes doubled.
 * An empty string is written as `""` so it stays distinct from NULL, an empty field.
 */
export function csvText(s: string): string {
  if (s === '') return '""';
  return needsQuotes.test(s) ? `"${s.replace(quote, '""')}"` : s;
}

/** One value as a CSV field: numbers need no quotes; NULL is empty; infinity is `Infinity`; BLOBs base64. */
function csvValue(v: SqliteValue): string {
  switch (typeof v) {
    case 'string':
      return csvText(v);
    case 'bigint':
      return integerText(v);
    case 'number':
      return Number.isFinite(v) ? realText(v) : String(v);
    default:
      return v === null ? '' : csvText(v.toString('base64'));
  }
}

/**
 * RFC 4180 with LF line ends, as morph.io wrote them (every CSV reader accepts them), every record
 * ended by one, the last too. Written here rather than with a CSV library: the library's generality
 * (options merged per field, an array per record) was half the encoder's cost per row.
 */
export function csvEncoder(columns: readonly string[]): Encoder {
  return {
    // The header comes from the prepared statement, so a query with no rows still has one.
    head: () => `${columns.map(csvText).join(',')}\n`,
    rows(batch) {
      let s = '';
      for (const row of batch) {
        let line = csvValue(row[0]!);
        for (let i = 1; i < row.length; i++) line += `,${csvValue(row[i]!)}`;
        s += `${line}\n`;
      }
      return s;
    },
    tail: () => '',
  };
}
