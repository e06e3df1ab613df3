/**
 * A query process: runs one untrusted query at a time against a read-only connection and writes
 * the encoded result to stdout as frames. The parent kills this process to stop a query; nothing
 * here needs to be interruptible.
 */
import Database from 'better-sqlite3';
import { findFormat } from '../formats/index.js';
import type { SqliteValue } from '../formats/values.js';
import { encodeFrame, FrameType, type EndPayload, type ErrorPayload, type QueryJob, type RunMessage } from './protocol.js';

/** Output is sent in chunks of about this size: large enough to be cheap, small enough to stream. */
const chunkChars = 64 * 1024;
/** A slow query's rows are sent at least this often, so clients see them as they come. */
const flushIntervalMs = 200;
const rowsPerBatch = 256;
/** Open connections kept, one per scraper; the oldest is closed beyond this. */
const maxConnections = 32;

const connections = new Map<number, { file: string; db: Database.Database }>();

function connection(job: QueryJob): Database.Database {
  const cached = connections.get(job.scraperId);
  if (cached?.file === job.file) {
    connections.delete(job.scraperId);
    connections.set(job.scraperId, cached); // most recently used last
    return cached.db;
  }
  cached?.db.close(); // a publish replaced this scraper's data
  connections.delete(job.scraperId);
  if (connections.size >= maxConnections) {
    const [oldestId, oldest] = connections.entries().next().value!;
    oldest.db.close();
    connections.delete(oldestId);
  }
  const db = new Database(job.file, { readonly: true, fileMustExist: true });
  connections.set(job.scraperId, { file: job.file, db });
  return db;
}

async function write(type: FrameType, payload: Buffer): Promise<void> {
  if (!process.stdout.write(encodeFrame(type, payload))) {
    await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

const writeJson = (type: FrameType, value: unknown) => write(type, Buffer.from(JSON.stringify(value)));

const fail = (kind: ErrorPayload['kind'], err: unknown) =>
  writeJson(FrameType.error, { kind, message: err instanceof Error ? err.message : String(err) } satisfies ErrorPayload);

async function run(job: QueryJob): Promise<void> {
  let db: Database.Database;
  try {
    db = connection(job);
  } catch (err) {
    return fail('internal', err);
  }
  let stmt: Database.Statement;
  try {
    stmt = db.prepare(job.sql);
  } catch (err) {
    // Syntax errors, unknown tables and "more than one statement" (a RangeError) are the client's.
    return fail('sql', err);
  }
  // ATTACH, VACUUM INTO, BEGIN, CREATE TEMP … get past a read-only connection; this stops them.
  if (!stmt.reader || !stmt.readonly) return fail('not-read', 'statement is not read-only');
  const format = findFormat(job.format);
  if (format?.kind !== 'rows') return fail('internal', `not a row format: ${job.format}`);
  try {
    const columns = stmt.columns().map((c) => c.name);
    // Checked before the first byte, so the client gets a clean 400 naming what its query lacks.
    const missing = format.requiredColumns?.filter((name) => !columns.includes(name)) ?? [];
    if (missing.length > 0) {
      return await writeJson(FrameType.error, { kind: 'columns', message: `missing columns: ${missing.join(', ')}`, missing } satisfies ErrorPayload);
    }
    stmt.raw(true).safeIntegers(true);
    const encoder = format.encoder({ columns, callback: job.callback, feed: job.feed });
    let out = encoder.head();
    let batch: SqliteValue[][] = [];
    let rows = 0;
    let lastFlush = Date.now();
    for (const row of stmt.iterate() as IterableIterator<SqliteValue[]>) {
      batch.push(row);
      rows += 1;
      if (batch.length === rowsPerBatch || Date.now() - lastFlush >= flushIntervalMs) {
        out += encoder.rows(batch);
        batch = [];
        if (out.length >= chunkChars || Date.now() - lastFlush >= flushIntervalMs) {
          await write(FrameType.data, Buffer.from(out));
          out = '';
          lastFlush = Date.now();
        }
      }
    }
    out += encoder.rows(batch) + encoder.tail();
    await write(FrameType.data, Buffer.from(out));
    await writeJson(FrameType.end, { rows } satisfies EndPayload);
  } catch (err) {
    // A runtime SQLite error (e.g. SQLITE_TOOBIG) is the query's; anything else here is running out
    // of memory or string length while building the result.
    return fail(err instanceof Database.SqliteError ? 'sql' : 'resources', err);
  }
}

process.on('message', (message: RunMessage) => {
  if (message.type === 'run') void run(message.job);
});
// The server went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
