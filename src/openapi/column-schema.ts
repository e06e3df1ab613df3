import type { ColumnInfo } from '../store/types.js';

/** A JSON Schema, as an OpenAPI 3.1 document holds it. */
export type JsonSchema = Record<string, unknown>;

/** SQLite's five column affinities. */
export type Affinity = 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';

/**
 * A declared type's affinity by SQLite's rules (https://sqlite.org/datatype3.html, 3.1), in their
 * order: `INT` anywhere is INTEGER; `CHAR`, `CLOB` or `TEXT`, TEXT; `BLOB` or no type, BLOB;
 * `REAL`, `FLOA` or `DOUB`, REAL; anything else (`NUMERIC`, `BOOLEAN`, `DATETIME`…), NUMERIC.
 */
export function affinityOf(declaredType: string): Affinity {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return 'INTEGER';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'TEXT';
  if (type === '' || type.includes('BLOB')) return 'BLOB';
  if (/REAL|FLOA|DOUB/.test(type)) return 'REAL';
  return 'NUMERIC';
}

/**
 * What the data API's JSON writes for a value of each affinity: INTEGER and REAL columns numbers
 * (integers whole, past 2^53 too), TEXT strings. A NUMERIC column keeps text that does not read as a
 * number as text (a `DATETIME` column's ISO dates), so it is either; a BLOB column (or one with no
 * declared type) holds whatever was stored, BLOBs written as base64 text, so any type.
 */
const affinityTypes: Record<Affinity, string[] | undefined> = {
  INTEGER: ['integer'],
  REAL: ['number'],
  TEXT: ['string'],
  NUMERIC: ['number', 'string'],
  BLOB: undefined,
};

/** A column's values as JSON Schema: its affinity's types, and `null` unless the column is known NOT NULL. */
export function columnSchema(column: ColumnInfo): JsonSchema {
  const affinity = affinityOf(column.type);
  const types = affinityTypes[affinity];
  const declared = column.type === '' ? 'no declared type' : `declared ${column.type}`;
  const description = `SQLite: ${declared}, ${affinity} affinity${column.generated ? ', a generated column' : ''}.`;
  if (types === undefined) return { description };
  return { type: column.notNull ? (types.length === 1 ? types[0] : types) : [...types, 'null'], description };
}

/** A table's (or view's) rows as an object schema: every column, in the table's order, always present. */
export function rowSchema(title: string, columns: readonly ColumnInfo[]): JsonSchema {
  return {
    title,
    type: 'object',
    properties: Object.fromEntries(columns.map((c) => [c.name, columnSchema(c)])),
    required: columns.map((c) => c.name),
  };
}
