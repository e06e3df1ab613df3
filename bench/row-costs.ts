/**
 * What one exported row costs in a query process, step by step, in this process (no HTTP, no IPC):
 * SQLite stepping with and without safe integers (BigInt for every INTEGER), row by row (iterate) and
 * a split export's way, each 2,048-row range in one call (all), Siphon's json and csv encoders,
 * turning the text into bytes, and gzip and brotli at Siphon's levels (and the ones used before) on 64 KB chunks. It
 * says which step of an exported row costs most (BENCHMARKS.md, "What dominates the cost now"). `node dist/bench/row-costs.js`
 * (after `npm run build`); builds its own 1,000,000-row table.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import zlib from 'node:zlib';
import { findFormat } from '../src/formats/index.js';
import type { SqliteValue } from '../src/formats/values.js';
import { buildFixture, fixtureRows, fixtureTable } from './fixture.js';
import { tempDir } from './servers.js';

const chunkChars = 64 * 1024;
/** A split export's rows per range (config's exportRangeRows), and its encoders' batch. */
const rangeRows = 2048;
const batchRows = 256;

function timed(what: string, rows: number, fn: () => void): void {
  fn(); // warm-up, and the file in the page cache
  const started = performance.now();
  fn();
  const ms = performance.now() - started;
  process.stdout.write(
    `${what.padEnd(62)} ${((ms * 1000) / rows).toFixed(2).padStart(6)} µs/row  ${(((rows / ms) * 1000) / 1000).toFixed(0).padStart(5)}k rows/s\n`,
  );
}

const dir = tempDir('siphon-row-costs-');
try {
  const db = new Database(buildFixture(dir), { readonly: true });
  const sql = `select * from ${fixtureTable}`;
  const columns = db
    .prepare(sql)
    .columns()
    .map((c) => c.name);
  const step = (safe: boolean) => () => {
    for (const row of db.prepare(sql).raw(true).safeIntegers(safe).iterate()) void row;
  };
  /** The table's rows in batches: row by row as an unsplit query, or a range at a time as a split export's process (the rowids are 1..n). */
  function* batches(inRanges: boolean): Generator<SqliteValue[][]> {
    if (!inRanges) {
      let batch: SqliteValue[][] = [];
      for (const row of db.prepare(sql).raw(true).safeIntegers(true).iterate() as IterableIterator<SqliteValue[]>) {
        if (batch.push(row) === batchRows) {
          yield batch;
          batch = [];
        }
      }
      yield batch;
      return;
    }
    const range = db.prepare(`${sql} where rowid >= ? and rowid < ? order by rowid`).raw(true).safeIntegers(true);
    for (let from = 1; from <= fixtureRows; from += rangeRows) {
      const rows = range.all(from, from + rangeRows) as SqliteValue[][];
      for (let i = 0; i < rows.length; i += batchRows) yield rows.slice(i, i + batchRows);
    }
  }
  const stepRanges = () => {
    for (const batch of batches(true)) void batch;
  };
  const encode = (format: string, bytes: boolean, inRanges: boolean, sink?: (b: Buffer) => void) => () => {
    const f = findFormat(format);
    if (f?.kind !== 'rows') throw new Error(`${format} is not a row format`);
    const encoder = f.encoder(columns, {});
    let out = encoder.head();
    for (const batch of batches(inRanges)) {
      out += encoder.rows(batch);
      if (out.length >= chunkChars) {
        if (bytes) sink?.(Buffer.from(out));
        out = '';
      }
    }
    out += encoder.tail();
    if (bytes) sink?.(Buffer.from(out));
  };
  process.stdout.write(`${fixtureRows} rows of \`${sql}\`, 8 columns; better-sqlite3 in one process, node ${process.version}\n`);
  timed('SQLite step, raw rows, safeIntegers(false) (numbers)', fixtureRows, step(false));
  timed('SQLite step, raw rows, safeIntegers(true) (BigInt), as Siphon', fixtureRows, step(true));
  timed("+ json encoder (Siphon's), 256-row batches", fixtureRows, encode('json', false, false));
  timed('+ Buffer.from per 64 KB of text', fixtureRows, encode('json', true, false));
  timed('csv encoder instead, + Buffer.from', fixtureRows, encode('csv', true, false));
  timed(`SQLite step, safeIntegers(true), all() per ${rangeRows}-row range`, fixtureRows, stepRanges);
  timed('+ json encoder, + Buffer.from, as a split export', fixtureRows, encode('json', true, true));
  timed('csv encoder instead, as a split export', fixtureRows, encode('csv', true, true));
  timed('ndjson encoder instead, as a split export', fixtureRows, encode('ndjson', true, true));
  const chunks: Buffer[] = [];
  encode('json', true, false, (b) => chunks.push(b))();
  // One call per chunk stands for Siphon's flush per chunk: the same work, less the kept dictionary.
  timed('json chunks through gzipSync level 6, one call per chunk', fixtureRows, () => {
    for (const c of chunks) zlib.gzipSync(c, { level: 6 });
  });
  timed('json chunks through gzipSync level 1, one call per chunk', fixtureRows, () => {
    for (const c of chunks) zlib.gzipSync(c, { level: 1 });
  });
  for (const quality of [4, 1]) {
    timed(`json chunks through brotliCompressSync quality ${quality}, per chunk`, fixtureRows, () => {
      for (const c of chunks) zlib.brotliCompressSync(c, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } });
    });
  }
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
