/**
 * A query process: runs untrusted queries one at a time, in the order sent, against a read-only
 * connection and writes each encoded result as frames to the server's connection, on the socket
 * named by SIPHON_OUTPUT_SOCKET (query-process.ts says why not stdout). The parent kills this
 * process to stop a query; nothing here needs to be interruptible.
 */
import { createServer, type Socket } from 'node:net';
import Database from 'better-sqlite3';
import { findFormat } from '../formats/index.js';
import type { SqliteValue } from '../formats/values.js';
import { connection, prepare, type Connection, type Prepared } from './connections.js';
import { FrameDeflater } from './frame-deflater.js';
import { FrameOutput } from './frame-output.js';
import { rangePlan, rangeQuery, rowsBeforeQuery } from './range-plan.js';
import { rangeOf } from './ranges.js';
import { rangeBatches, streamedBatches } from './row-batches.js';
import {
  encodeFrame,
  FrameType,
  type EndPayload,
  type ErrorPayload,
  type QueryJob,
  type RowidRange,
  type ServerMessage,
} from './protocol.js';

/** Output is sent in frames of about this size: large enough to be cheap, small enough to stream. */
const chunkBytes = 64 * 1024;
/** A slow query's rows are sent at least this often, so clients see them as they come. */
const flushIntervalMs = 200;

/** The server's connection, once accepted (a job may come before: its frames wait for it). */
let serverSocket: Socket | undefined;
/** Made once the process listens for the server, which it then tells it is ready. */
const connected = new Promise<Socket>((resolve) => {
  const listener = createServer((socket) => {
    // One connection, the server's: the socket's path goes with the listener.
    listener.close();
    // A server gone leaves nobody to answer: the process ends as when its IPC channel closes.
    socket.on('error', () => process.exit(0));
    serverSocket = socket;
    resolve(socket);
  });
  const socketPath = process.env.SIPHON_OUTPUT_SOCKET;
  if (!socketPath) throw new Error('SIPHON_OUTPUT_SOCKET is not set: a query process is started by the server');
  listener.listen(socketPath, () => process.send?.({ type: 'ready' }));
});

async function send(frame: Buffer): Promise<void> {
  const socket = serverSocket ?? (await connected);
  if (!socket.write(frame)) await new Promise((resolve) => socket.once('drain', resolve));
}

/** Every query's data, one after the other. */
const output = new FrameOutput(send, () => (serverSocket?.writableLength ?? 0) === 0);

const writeJson = (type: FrameType, value: unknown) => send(encodeFrame(type, Buffer.from(JSON.stringify(value))));

const fail = (kind: ErrorPayload['kind'], err: unknown) =>
  writeJson(FrameType.error, {
    kind,
    message: err instanceof Error ? err.message : String(err),
    stack: kind === 'internal' && err instanceof Error ? err.stack : undefined,
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

/** The job's values as better-sqlite3 takes them: positional ones spread, named ones as one object. */
function boundValues({ params }: QueryJob): unknown[] {
  if (params === undefined) return [];
  return Array.isArray(params) ? params : [params];
}

/** The rows of the query, or of the range of it this process runs. */
function batchesOf(
  open: Connection,
  job: QueryJob,
  query: Prepared,
  range: RowidRange | undefined,
  due: () => boolean,
): Iterable<SqliteValue[][]> {
  if (!range) return streamedBatches(query.stmt.iterate(...boundValues(job)) as Iterable<SqliteValue[]>, due);
  const { sql, params } = rangeQuery(range);
  return rangeBatches(prepare(open, sql).stmt, params, range.rows, due);
}

async function run(job: QueryJob): Promise<void> {
  let open: Connection;
  try {
    open = connection(job);
  } catch (err) {
    return fail('internal', err);
  }
  let prepared: Prepared;
  try {
    prepared = prepare(open, job.sql);
  } catch (err) {
    // Syntax errors, unknown tables and "more than one statement" (a RangeError) are the client's.
    return fail('sql', err);
  }
  const { readOnly, columns } = prepared;
  if (!readOnly) return fail('not-read', 'statement is not read-only');
  const format = findFormat(job.format);
  if (format?.kind !== 'rows') return fail('internal', new Error(`not a row format: ${job.format}`));
  try {
    // Checked before the first byte, so the client gets a clean 400 naming what its query lacks.
    const missing = format.requiredColumns?.names.filter((name) => !columns.includes(name)) ?? [];
    if (missing.length > 0) {
      return await writeJson(FrameType.error, {
        kind: 'columns',
        message: `missing columns: ${missing.join(', ')}`,
        missing,
      } satisfies ErrorPayload);
    }
    let range = job.range;
    // A range's SQL is the table's, not the query's: a query with bound values is never split.
    const plan = job.split && !job.params && rangePlan(open, job.sql, job.split.rowsPerRange);
    if (plan) {
      await writeJson(FrameType.plan, plan);
      range = rangeOf(plan, 0);
    }
    // A range is the same query over part of the rows: the same columns, so the same encoder; the
    // first range writes the head, the last the tail, and rows before a range are what json's seam needs.
    const rowsBefore = range?.from !== undefined && prepare(open, rowsBeforeQuery(range)).stmt.get(BigInt(range.from)) !== undefined;
    const encoder = format.encoder(columns, job.options, rowsBefore);
    output.deflater = job.deflate ? new FrameDeflater() : undefined;
    if (range?.from === undefined) await output.text(encoder.head());
    let lastFlush = Date.now();
    const due = () => Date.now() - lastFlush >= flushIntervalMs;
    let rows = 0;
    for (const batch of batchesOf(open, job, prepared, range, due)) {
      rows += batch.length;
      await output.text(encoder.rows(batch));
      if (output.pending >= chunkBytes || due()) {
        await output.flush();
        lastFlush = Date.now();
      }
    }
    if (range?.to === undefined) await output.text(encoder.tail());
    // The end frame says what was deflated: the last data first.
    if (output.deflater) await output.flush();
    await output.finish(FrameType.end, JSON.stringify({ rows, deflated: output.deflater?.deflated } satisfies EndPayload));
  } catch (err) {
    output.discard();
    return fail(failureKind(err), err);
  }
}

/** Jobs sent and not started yet: the next one is sent before the one running ends (pool.ts). */
const queued: { id: number; job: QueryJob; cancelled: boolean }[] = [];
let running = false;
/**
 * Two turns of the event loop: one of them reads the messages that came meanwhile (a poll
 * between two immediates), so a cancel sent while a job ran is seen before the next one starts.
 */
const twoTurns = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

async function runQueued(): Promise<void> {
  while (queued.length > 0) {
    const { job, cancelled } = queued.shift()!;
    // Whatever escapes run() is ours: it is answered as such, stack included, so the server logs it.
    if (cancelled) await send(encodeFrame(FrameType.skipped, Buffer.alloc(0)));
    else await run(job).catch((err: unknown) => fail('internal', err));
    if (queued.length > 0) await twoTurns();
  }
  running = false;
}

process.on('message', (message: ServerMessage) => {
  if (message.type === 'run') {
    queued.push({ id: message.id, job: message.job, cancelled: false });
    // Started once the messages read with this one are handled (each is emitted before any microtask
    // runs): a cancel right behind it is seen first.
    if (!running) {
      running = true;
      queueMicrotask(() => void runQueued());
    }
  } else {
    const job = queued.find((q) => q.id === message.id);
    if (job) job.cancelled = true;
  }
});
// The server went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
