/**
 * A query process: runs one untrusted query at a time against a read-only connection and writes
 * the encoded result to stdout as frames. The parent kills this process to stop a query; nothing
 * here needs to be interruptible.
 */
import Database from 'better-sqlite3';
import { findFormat } from '../formats/index.js';
import type { SqliteValue } from '../formats/values.js';
import {
  encodeFrame, FrameType, maxFramePayload, type EndPayload, type ErrorPayload, type QueryJob, type RunMessage,
} from './protocol.js';

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
  // The schema is the publisher's: a view over pragma_database_list would show the file's path to
  // whoever reads it. Untrusted, a schema cannot use virtual tables or functions SQLite does not mark
  // harmless (the pragma functions, but also FTS's snippet() and highlight(): in a query they work).
  db.pragma('trusted_schema = OFF');
  connections.set(job.scraperId, { file: job.file, db });
  return db;
}

async function write(type: FrameType, payload: Buffer): Promise<void> {
  let at = 0;
  do {
    if (!process.stdout.write(encodeFrame(type, payload.subarray(at, at + maxFramePayload)))) {
      await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
    at += maxFramePayload;
  } while (at < payload.length);
}

const writeJson = (type: FrameType, value: unknown) => write(type, Buffer.from(JSON.stringify(value)));

const fail = (kind: ErrorPayload['kind'], err: unknown) =>
  writeJson(FrameType.error, {
    kind, message: err instanceof Error ? err.message : String(err), stack: kind === 'internal' && err instanceof Error ? err.stack : undefined,
  } satisfies ErrorPayload);

/** V8 running out of room for one string or buffer while the result is built: the query's size, not a bug. */
const outOfRoom = /Invalid string length|Array buffer allocation failed|Invalid typed array length|out of memory/i;

/**
 * Who a failure while running is down to: SQLite out of memory or temporary disk (a write past the
 * file size cap fails as an I/O error) is the query's resources; any other SQLite error is the
 * query's (too big a value, an overflow); running out of room for the result is resources; anything
 * else is a bug of ours.
 */
function failureKind(err: unknown): ErrorPayload['kind'] {
  if (err instanceof Database.SqliteError) {
    return /^SQLITE_(NOMEM|FULL|IOERR)/.test(err.code) ? 'resources' : 'sql';
  }
  return err instanceof Error && outOfRoom.test(err.message) ? 'resources' : 'internal';
}

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
  if (format?.kind !== 'rows') return fail('internal', new Error(`not a row format: ${job.format}`));
  try {
    const columns = stmt.columns().map((c) => c.name);
    // Checked before the first byte, so the client gets a clean 400 naming what its query lacks.
    const missing = format.requiredColumns?.filter((name) => !columns.includes(name)) ?? [];
    if (missing.length > 0) {
      return await writeJson(FrameType.error, { kind: 'columns', message: `missing columns: ${missing.join(', ')}`, missing } satisfies ErrorPayload);
    }
    stmt.raw(true).safeIntegers(true);
    const encoder = format.encoder(columns, job.options);
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
    return fail(failureKind(err), err);
  }
}

process.on('message', (message: RunMessage) => {
  // Whatever escapes run() is ours: it is answered as such, stack included, so the server logs it.
  if (message.type === 'run') run(message.job).catch((err: unknown) => fail('internal', err));
});
// The server went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
