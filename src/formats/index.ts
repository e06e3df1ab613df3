import { atomColumns, atomEncoder } from './atom.js';
import { csvEncoder } from './csv.js';
import type { Encoder, EncoderOptions } from './encoder.js';
import { jsonEncoder, ndjsonEncoder } from './json.js';

/**
 * The formats a scraper's data can be fetched in, keyed by the extension in `data.<format>`.
 * A `rows` format runs the query and encodes its rows; a `file` format sends the database file.
 * Adding a format is one encoder file plus one entry here.
 */
export type Format =
  | {
    kind: 'rows'; name: string; contentType: string; attachment?: string; encoder: (o: EncoderOptions) => Encoder;
    /** Columns the query must return; checked in the query process before the first byte. */
    requiredColumns?: readonly string[];
  }
  | { kind: 'file'; name: string; contentType: string; attachment: string };

const list: Format[] = [
  { kind: 'rows', name: 'json', contentType: 'application/json; charset=utf-8', encoder: jsonEncoder },
  { kind: 'rows', name: 'csv', contentType: 'text/csv; charset=utf-8', attachment: 'csv', encoder: csvEncoder },
  { kind: 'rows', name: 'ndjson', contentType: 'application/x-ndjson; charset=utf-8', encoder: ndjsonEncoder },
  { kind: 'file', name: 'sqlite', contentType: 'application/vnd.sqlite3', attachment: 'sqlite' },
  {
    kind: 'rows', name: 'atom', contentType: 'application/atom+xml; charset=utf-8', encoder: atomEncoder,
    requiredColumns: atomColumns,
  },
];

export const formatNames: readonly string[] = list.map((f) => f.name);

export function findFormat(name: string): Format | undefined {
  return list.find((f) => f.name === name);
}

export const jsonpContentType = 'application/javascript; charset=utf-8';

/** A JavaScript identifier or dotted path of them, ASCII only, at most 128 characters. */
const callbackPattern = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

export function isValidCallback(name: string): boolean {
  return name.length <= 128 && callbackPattern.test(name);
}
