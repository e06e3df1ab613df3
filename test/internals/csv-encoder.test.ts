/**
 * The csv encoder against csv-stringify with the options Siphon's csv was written with before the
 * encoder was written by hand: the same bytes for every kind of value, awkward text included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify, type Options } from 'csv-stringify/sync';
import { csvEncoder } from '../../src/formats/csv.js';
import { textValue, type SqliteValue } from '../../src/formats/values.js';

const libraryOptions: Options = { record_delimiter: 'unix', quoted_match: [/^$/, /[\r\n]/], eof: true };

function library(columns: string[], rows: SqliteValue[][]): string {
  return (
    stringify([columns], libraryOptions) +
    (rows.length
      ? stringify(
          rows.map((row) => row.map(textValue)),
          libraryOptions,
        )
      : '')
  );
}

function encoded(columns: string[], rows: SqliteValue[][]): string {
  const encoder = csvEncoder(columns);
  return encoder.head() + encoder.rows(rows) + encoder.tail();
}

test('csv: every kind of value, byte for byte as csv-stringify wrote it', () => {
  const columns = ['a', 'b,c', 'd"e', '', 'line\nbreak', 'cr\r'];
  const rows: SqliteValue[][] = [
    ['', null, 'plain', 'a,b', 'say "hi"', '"'],
    ['x\ny', 'x\ry', 'x\r\ny', ' lead', 'trail ', '=1+2'],
    [0n, -9223372036854775808n, 9223372036854775807n, 1.5, -0, 0],
    [1, 1e21, -1e21, 1e-7, 123456789012345680000, Number.MAX_VALUE],
    [Infinity, -Infinity, Buffer.from([0, 255]), Buffer.alloc(0), 'é 中文 😀', '\u2028<&>'],
  ];
  assert.equal(encoded(columns, rows), library(columns, rows));
  assert.equal(encoded(columns, []), library(columns, []));
});

test('csv: random values match csv-stringify', () => {
  const alphabet = ['a', 'é', '中', ',', '"', '\r', '\n', ' ', '\t', '\\', '😀', ''];
  let seed = 11;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const value = (): SqliteValue => {
    switch (next() % 6) {
      case 0:
        return null;
      case 1:
        return BigInt(next()) * (next() % 2 ? 1n : -1n) * 4_000_000_000n;
      case 2:
        return (next() - 2 ** 30) / ((next() % 1000) + 1);
      case 3:
        return Buffer.from(Array.from({ length: next() % 5 }, () => next() % 256));
      default: {
        let s = '';
        for (let n = next() % 12; n > 0; n--) s += alphabet[next() % alphabet.length];
        return s;
      }
    }
  };
  for (let i = 0; i < 200; i++) {
    const width = 1 + (next() % 6);
    const columns = Array.from({ length: width }, () => String(value() ?? ''));
    const rows = Array.from({ length: next() % 20 }, () => Array.from({ length: width }, value));
    assert.equal(encoded(columns, rows), library(columns, rows), `case ${i}`);
  }
});
