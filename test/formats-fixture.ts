/**
 * The awkward-values fixture shared by the formats-*.test.ts files, and the reference they compare
 * Siphon's output with: the same stored data file read directly by better-sqlite3 (raw rows,
 * safe integers), so every expectation comes from SQLite itself and not from Siphon's encoders.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { isInteger, isLosslessNumber } from 'lossless-json';
import { makeDb } from './helpers/fixture-db.js';
import { startServer, type TestServer } from './helpers/server.js';

export type RefValue = null | bigint | number | string | Buffer;
export interface Reference {
  columns: string[];
  rows: RefValue[][];
}

/** A column name with a space, double quotes, unicode and the characters JSON must escape for HTML. */
export const oddColumn = 'odd "name" é中 <&>';
const oddSql = `"${oddColumn.replace(/"/g, '""')}"`;

export const emoji = '\u{1F44D}\u{1F3FD} \u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466} \u{1F3F3}\uFE0F\u200D\u{1F308}';
export const rtl = '\u200Fمرحبا بالعالم';

// One column of each affinity plus one with none (so a single column holds values of every type).
// Row 6 holds '' next to NULL; row 12 is all NULL. The untyped column keeps -0.0, which a REAL
// column would store as the integer 0.
const fixtureSql = `
create table awkward (id integer primary key, t text, i integer, r real, b blob, n numeric, ${oddSql});
insert into awkward values
  (1, 'say "hi"', 0, 0.1, x'00ff10', '10', 'plain'),
  (2, 'a,b,c', 9007199254740993, 1e-300, x'', '1.5', 9007199254740993),
  (3, 'cr' || char(13) || 'only', -9223372036854775808, 1.7976931348623157e308, null, 'abc', 0.1),
  (4, 'lf' || char(10) || 'only', 9223372036854775807, 9e999, null, null, x'00ff10'),
  (5, 'crlf' || char(13, 10) || 'end', -1, -9e999, null, null, -0.0),
  (6, '', null, 1.0, x'', null, ''),
  (7, '  spaced  ', null, 5e-324, null, null, 1.0),
  (8, 'é 中文 ${rtl}', null, -2.5, null, null, -9223372036854775808),
  (9, '${emoji}', null, null, null, null, 9e999),
  (10, '& < > ]]> </script>', null, null, null, null, '</script>'),
  (11, 'line' || char(8232) || 'sep' || char(8233) || 'para', null, null, null, null, null),
  (12, null, null, null, null, null, null),
  (13, 'tab' || char(9) || 'back\\slash ' || char(1) || char(0) || 'nul', null, null, null, null, null);
`;

export const allRows = 'select * from awkward order by id';
export const noRows = 'select * from awkward where 0';
export const rowCount = 13;
/**
 * 2,600 awkward rows (200 copies of the table): more than one 256-row batch and one 64 KiB chunk in
 * the query process, so row separators and CSV record ends are checked across batch boundaries.
 */
export const manyRows =
  'with recursive c(x) as (select 1 union all select x + 1 from c where x < 200) select c.x, a.* from c, awkward a order by c.x, a.id';
export const manyRowCount = 2600;

export interface FormatsFixture {
  server: TestServer;
  key: string;
  /** The scraper's stored data file: what Siphon queries and what the reference reads. */
  file: string;
  owner: string;
  scraper: string;
  reference(sql: string): Reference;
  close(): Promise<void>;
}

export async function startFormatsFixture(): Promise<FormatsFixture> {
  const server = await startServer();
  const { key } = await server.catalog.addUser('alice');
  const source = makeDb(server.dataDir, 'awkward-src.sqlite', fixtureSql);
  const added = await server.catalog.addScraper('alice/awkward', source, { isPrivate: false, description: '' });
  const db = new Database(added.data.file, { readonly: true, fileMustExist: true });
  const reference = (sql: string): Reference => {
    const stmt = db.prepare(sql).raw(true).safeIntegers(true);
    return { columns: stmt.columns().map((c) => c.name), rows: stmt.all() as RefValue[][] };
  };
  checkFixture(reference);
  return {
    server,
    key,
    file: added.data.file,
    owner: 'alice',
    scraper: 'awkward',
    reference,
    async close() {
      db.close();
      await server.close();
    },
  };
}

/** The fixture must really hold the awkward values, or the tests built on it prove less than they say. */
function checkFixture(reference: (sql: string) => Reference): void {
  const { columns, rows } = reference(allRows);
  assert.deepEqual(columns, ['id', 't', 'i', 'r', 'b', 'n', oddColumn]);
  assert.equal(rows.length, rowCount);
  const at = (id: number, col: number) => rows[id - 1]![col];
  assert.equal(at(2, 2), 9007199254740993n);
  assert.equal(at(3, 2), -9223372036854775808n);
  assert.equal(at(4, 2), 9223372036854775807n);
  assert.equal(at(4, 3), Infinity);
  assert.equal(at(5, 3), -Infinity);
  assert.ok(Object.is(at(5, 6), -0));
  assert.equal(at(6, 3), 1); // REAL 1.0 comes back as a number, not a bigint
  assert.deepEqual(at(1, 4), Buffer.from([0x00, 0xff, 0x10]));
  assert.deepEqual(at(2, 4), Buffer.alloc(0));
  assert.equal(at(6, 1), '');
  assert.equal(at(12, 1), null);
  assert.equal(at(13, 1), 'tab\tback\\slash \u0001\u0000nul');
  assert.equal(at(3, 1), 'cr\ronly');
  assert.equal(at(5, 1), 'crlf\r\nend');
}

/** Reads a response whole and decodes it as UTF-8, failing on any invalid byte. */
export async function fetchText(url: string, init?: RequestInit): Promise<{ res: Response; bytes: Buffer; text: string }> {
  const res = await fetch(url, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
}

/**
 * Compares one row object parsed with lossless-json (numbers kept as their text) with the reference row:
 * keys in column order, integers as exact BigInt, floats as the same double, BLOBs as base64.
 */
export function assertJsonRow(actual: unknown, columns: string[], expected: RefValue[], where: string): void {
  assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${where}: not an object`);
  const obj = actual as Record<string, unknown>;
  assert.deepEqual(Object.keys(obj), columns, `${where}: keys`);
  columns.forEach((column, i) => {
    const ref = expected[i]!;
    const got = obj[column];
    const at = `${where} column ${JSON.stringify(column)}`;
    if (ref === null) {
      assert.equal(got, null, at);
    } else if (typeof ref === 'bigint') {
      assert.ok(isLosslessNumber(got) && isInteger(got.value), `${at}: ${String(got)} is not an integer literal`);
      assert.equal(BigInt(got.value), ref, at);
    } else if (typeof ref === 'number') {
      assert.ok(isLosslessNumber(got), `${at}: not a number`);
      // A REAL stays a float literal (1.0, -0.0, 9e999), as SQLite and morph.io write it, so typed
      // clients (Python, Ruby) get a float; and it reads back as exactly the same double, sign included.
      assert.ok(!isInteger(got.value), `${at}: ${got.value} is written as an integer`);
      assert.ok(Object.is(Number(got.value), ref), `${at}: ${got.value} is not ${ref}`);
    } else if (typeof ref === 'string') {
      assert.equal(got, ref, at);
    } else {
      assert.equal(got, ref.toString('base64'), at);
    }
  });
}
