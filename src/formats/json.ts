import type { Encoder } from './encoder.js';
import { jsonString, jsonValue, type SqliteValue } from './values.js';

type RowEncoder = (row: SqliteValue[]) => string;

/**
 * Row encoders by column list. The query process hands a kept statement's same array at every run,
 * so a statement's encoder is built once. (Unrolled into one expression with `new Function`, it was
 * no faster: encoding the values is the cost.)
 */
const rowEncoders = new WeakMap<readonly string[], RowEncoder>();

/** Row objects with keys in the query's column order, built from precomputed `"name":` prefixes. */
export function rowObjectEncoder(columns: readonly string[]): RowEncoder {
  let encoder = rowEncoders.get(columns);
  if (!encoder) rowEncoders.set(columns, (encoder = newRowObjectEncoder(columns)));
  return encoder;
}

function newRowObjectEncoder(columns: readonly string[]): RowEncoder {
  const keys = columns.map((c, i) => `${i === 0 ? '{' : ','}${jsonString(c)}:`);
  if (keys.length === 0) return () => '{}';
  return (row) => {
    let s = '';
    for (let i = 0; i < keys.length; i++) s += keys[i] + jsonValue(row[i]!);
    return `${s}}`;
  };
}

/**
 * A bare JSON array of row objects, byte for byte as morph.io writes it (`[\n` row (`\n,` row)* `\n]`),
 * or with a callback, JSONP: `/**\/cb([...]);`. The leading comment stops a callback name from
 * being read as the start of a Flash/UTF-7 payload (Rosetta Flash), as Rails and Google do.
 */
export interface JsonOptions {
  /** The JSONP callback, already validated. */
  callback?: string;
}

/** `rowsBefore`: the rows follow rows encoded elsewhere (an earlier range), so the first one gets its separator too. */
export function jsonEncoder(columns: readonly string[], { callback }: JsonOptions, rowsBefore = false): Encoder {
  const encodeRow = rowObjectEncoder(columns);
  let first = !rowsBefore;
  return {
    head: () => (callback ? `/**/${callback}([\n` : '[\n'),
    rows(batch) {
      let s = '';
      for (const row of batch) {
        s += first ? encodeRow(row) : `\n,${encodeRow(row)}`;
        first = false;
      }
      return s;
    },
    tail: () => (callback ? '\n]);' : '\n]'),
  };
}

/** Newline-delimited JSON: one row object per line. */
export function ndjsonEncoder(columns: readonly string[]): Encoder {
  const encodeRow = rowObjectEncoder(columns);
  return {
    head: () => '',
    rows(batch) {
      let s = '';
      for (const row of batch) s += `${encodeRow(row)}\n`;
      return s;
    },
    tail: () => '',
  };
}
