/**
 * A query's rows in the batches the query process encodes, as better-sqlite3 gives them: raw
 * arrays, integers as bigints (connections.ts).
 */
import type Database from 'better-sqlite3';
import type { SqliteValue } from '../formats/values.js';

type Row = SqliteValue[];

const rowsPerBatch = 256;

/**
 * Rows read one by one, held at most `rowsPerBatch` at a time, whatever the query returns; a batch
 * is cut short when `due` says the rows so far should go (a slow query's rows go out as they come).
 */
export function* streamedBatches(rows: Iterable<Row>, due: () => boolean): Generator<Row[]> {
  let batch: Row[] = [];
  for (const row of rows) {
    if (batch.push(row) === rowsPerBatch || due()) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * A range of a split export's rows (range-plan.ts), its statement taking the range's bounds then a
 * limit and an offset: up to `atOnce` rows read in one call, as a row read one by one costs a call
 * into the binding worth a fifth of SQLite stepping it; a range holding more, its rowids spread
 * unevenly, streams the rest, so a process never holds more than `atOnce` rows of it.
 */
export function* rangeBatches(stmt: Database.Statement, bounds: bigint[], atOnce: number, due: () => boolean): Generator<Row[]> {
  const rows = stmt.all(...bounds, atOnce, 0) as Row[];
  for (let i = 0; i < rows.length; i += rowsPerBatch) yield rows.slice(i, i + rowsPerBatch);
  if (rows.length === atOnce) yield* streamedBatches(stmt.iterate(...bounds, -1, atOnce) as Iterable<Row>, due);
}
