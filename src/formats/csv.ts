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

/** A text that a spreadsheet would read as a formula or command (OWASP's CSV injection rule). */
const formulaStart = /^[=+\-@\t\r]/;

/**
 * A text field for Excel: as csvText writes it, but one that starts like a formula is made inert, a
 * single quote put before it inside a quoted field (`"'=1+1"`), so a scraped value never runs. Only
 * text is: an INTEGER or REAL such as -5 is written as a number, which cannot be a formula.
 */
function excelText(s: string): string {
  return formulaStart.test(s) ? `"'${s.replace(quote, '""')}"` : csvText(s);
}

/** The csv format's options: `excel` for a file Excel opens right. Absent, the bytes are morph.io's. */
export interface CsvOptions {
  excel?: true;
}

/** How a CSV is written: its text fields, its line end, and what comes before the header. */
export interface CsvStyle {
  text: (s: string) => string;
  eol: string;
  bom: string;
}

const plainStyle: CsvStyle = { text: csvText, eol: '\n', bom: '' };
// Excel reads a CSV without a byte-order mark in the system's legacy code page (é as Ã©).
const excelStyle: CsvStyle = { text: excelText, eol: '\r\n', bom: '\uFEFF' };

export function csvStyle(options: CsvOptions): CsvStyle {
  return options.excel ? excelStyle : plainStyle;
}

/** One value as a CSV field: numbers need no quotes; NULL is empty; infinity is `Infinity`; BLOBs base64. */
function csvValue(v: SqliteValue, text: (s: string) => string): string {
  switch (typeof v) {
    case 'string':
      return text(v);
    case 'bigint':
      return integerText(v);
    case 'number':
      return Number.isFinite(v) ? realText(v) : String(v);
    default:
      return v === null ? '' : text(v.toString('base64'));
  }
}

/**
 * RFC 4180 with LF line ends, as morph.io wrote them (every CSV reader accepts them), every record
 * ended by one, the last too; for Excel, CRLF after a byte-order mark. Written here rather than with
 * a CSV library: the library's generality (options merged per field, an array per record) was half
 * the encoder's cost per row.
 */
export function csvEncoder(columns: readonly string[], options: CsvOptions = {}): Encoder {
  const { text, eol, bom } = csvStyle(options);
  return {
    // The header comes from the prepared statement, so a query with no rows still has one.
    head: () => `${bom}${columns.map(text).join(',')}${eol}`,
    rows(batch) {
      let s = '';
      for (const row of batch) {
        let line = csvValue(row[0]!, text);
        for (let i = 1; i < row.length; i++) line += `,${csvValue(row[i]!, text)}`;
        s += line + eol;
      }
      return s;
    },
    tail: () => '',
  };
}
