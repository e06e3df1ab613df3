/**
 * What one exported row costs in a query process, step by step, in this process (no HTTP, no IPC):
 * SQLite stepping with and without safe integers (BigInt for every INTEGER), Siphon's json and csv
 * encoders, turning the text into bytes, and gzip and brotli at Siphon's levels (and the ones used before) on 64 KB chunks. It
 * ranks the remedies of BENCHMARKS.md's "where the time goes". `node dist/bench/row-costs.js`
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
  const encode = (format: string, bytes: boolean, sink?: (b: Buffer) => void) => () => {
    const f = findFormat(format);
    if (f?.kind !== 'rows') throw new Error(`${format} is not a row format`);
    const encoder = f.encoder(columns, {});
    let out = encoder.head();
    let batch: SqliteValue[][] = [];
    for (const row of db.prepare(sql).raw(true).safeIntegers(true).iterate() as IterableIterator<SqliteValue[]>) {
      batch.push(row);
      if (batch.length === 256) {
        out += encoder.rows(batch);
        batch = [];
        if (out.length >= chunkChars) {
          if (bytes) {
            const b = Buffer.from(out);
            sink?.(b);
          }
          out = '';
        }
      }
    }
    out += encoder.rows(batch) + encoder.tail();
    if (bytes) sink?.(Buffer.from(out));
  };
  process.stdout.write(`${fixtureRows} rows of \`${sql}\`, 8 columns; better-sqlite3 in one process, node ${process.version}\n`);
  timed('SQLite step, raw rows, safeIntegers(false) (numbers)', fixtureRows, step(false));
  timed('SQLite step, raw rows, safeIntegers(true) (BigInt), as Siphon', fixtureRows, step(true));
  timed("+ json encoder (Siphon's), 256-row batches", fixtureRows, encode('json', false));
  timed('+ Buffer.from per 64 KB of text', fixtureRows, encode('json', true));
  timed('csv encoder instead, + Buffer.from', fixtureRows, encode('csv', true));
  const chunks: Buffer[] = [];
  encode('json', true, (b) => chunks.push(b))();
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
