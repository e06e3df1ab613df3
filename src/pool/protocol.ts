import type { QueryFailure } from '../errors.js';

/**
 * The only contract between the server and its query processes.
 * Jobs go to a child over IPC; results come back on a socket of its own (query-process.ts) as frames
 * `[type u8][length u32 BE][payload]`, so data, end and error (and a split query's plan, before
 * its first data) stay in order on one channel. A child runs its jobs one after another, in the
 * order sent, and ends each with exactly one end, error or skipped frame: so the server knows
 * whose every frame is, even with a job sent ahead of its turn (pool.ts).
 */
export interface QueryJob {
  /** Identifies the scraper; the child keeps one open connection per scraper. */
  scraperId: number;
  /** The data version's SQLite file, opened read-only. */
  file: string;
  sql: string;
  /**
   * Values bound to the statement's parameters, always as data, never SQL: to its `?` in order (the
   * table pages' filters and paging, src/browse/), or to its `:name`s by name (a data call's
   * `:name=value`, src/sql/named-params.ts). Absent when it has none.
   */
  params?: BoundValues;
  /** A row format's name in the registry (src/formats/index.ts). */
  format: string;
  /** That format's encoder options for this call (JSON data, never a key), passed through unread. */
  options: unknown;
  /**
   * Set by the pool when a second process could help: if the query reads a whole rowid table, the
   * process answers with a plan of rowid ranges (a `plan` frame) and runs the first range only.
   */
  split?: { rowsPerRange: number };
  /** Set by the pool: run only this range of the query's rows (ranges.ts). */
  range?: RowidRange;
  /**
   * For a gzip answer: data frames carry the output deflated (frame-deflater.ts), pieces of one raw
   * deflate stream, and the end frame says what was deflated.
   */
  deflate?: boolean;
}

/** Values for a statement's `?` parameters, in order, or for its `:name`s, by name. */
export type BoundValues = QueryParam[] | Record<string, QueryParam>;

/** A bound value: JSON over IPC, so integers beyond 2^53 go as text (SQLite converts them by the column's affinity). */
export type QueryParam = string | number | null;

/** One range of a split query: its rows whose rowid is `from` or above and below `to` (decimal; absent: unbounded). */
export interface RowidRange {
  table: string;
  /** The name the rowid goes by in this table (rowid, _rowid_ or oid: the first no column took). */
  column: string;
  from?: string;
  to?: string;
  /** The rows its process reads in one call, the plan's rows per range; a range holding more (rowids spread unevenly) streams the rest. */
  rows: number;
}

/** A split query's ranges: range k runs from `bounds[k - 1]` to `bounds[k]`; the first and last are open. */
export interface RangePlan {
  table: string;
  column: string;
  bounds: string[];
  /** The rows per range it was planned for: about what a range holds, where rowids are dense. */
  rows: number;
}

/** `id`: numbers the jobs sent to one process, so that one sent ahead can be taken back. */
export interface RunMessage {
  type: 'run';
  id: number;
  job: QueryJob;
}

/** Takes back a job sent ahead: unless it has started, the process answers it with a skipped frame. */
export interface CancelMessage {
  type: 'cancel';
  id: number;
}

export type ServerMessage = RunMessage | CancelMessage;

/**
 * `inflated`: after each data frame of a deflating job, its length before deflating (u32 BE).
 * `skipped`: a job taken back before it started, in its place: nothing else comes for it.
 */
export const FrameType = { data: 1, end: 2, error: 3, plan: 4, inflated: 5, skipped: 6 } as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

/** Whether a frame of this type is its job's last: each job ends with exactly one end, error or skipped frame. */
export const endsJob = (type: FrameType): boolean => type === FrameType.end || type === FrameType.error || type === FrameType.skipped;

/** What a process deflated for one query (or range): the CRC-32 and length of the bytes before deflating. */
export interface Deflated {
  crc: number;
  bytes: number;
}

export interface EndPayload {
  rows: number;
  /** A deflating job's: the CRC-32 and length of its output before deflating. */
  deflated?: Deflated;
}

/**
 * `sql`: SQLite refused or failed the query; `not-read`: the statement would not only read;
 * `columns`: the query lacks columns its format needs (listed in `missing`);
 * `resources`: the result outgrew what a process can hold (memory, temporary disk);
 * `internal`: our fault (data file unreadable, an exception in our code: `stack` says where).
 */
export interface ErrorPayload {
  kind: 'sql' | 'not-read' | 'columns' | 'resources' | 'internal';
  message: string;
  missing?: string[];
  stack?: string;
}

/** What an error frame says, as the failure the server answers with. */
export function failureFrom(p: ErrorPayload): QueryFailure {
  switch (p.kind) {
    case 'sql':
      return { kind: 'sql', message: p.message };
    case 'not-read':
      return { kind: 'not-read' };
    case 'columns':
      return { kind: 'columns', missing: p.missing ?? [] };
    case 'resources':
      return { kind: 'resources' };
    case 'internal':
      return { kind: 'internal', message: p.message, stack: p.stack };
  }
}

export interface Frame {
  type: FrameType;
  payload: Buffer;
}

export const frameHeaderBytes = 5;
/**
 * Data is sent in frames of at most this size, however large one value is (a deflated frame may be
 * a few bytes more: deflate's stored blocks, for bytes that do not compress): the server then never
 * holds more than this of a frame that has not fully arrived.
 */
export const maxFramePayload = 256 * 1024;

/** Writes a frame's header at `at`, before its `length` bytes of payload. */
export function writeFrameHeader(frame: Buffer, at: number, type: FrameType, length: number): void {
  frame.writeUInt8(type, at);
  frame.writeUInt32BE(length, at + 1);
}

/** A whole frame in a new buffer: for the small ones (end, error); data is built in place (frame-output.ts). */
export function encodeFrame(type: FrameType, payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(frameHeaderBytes + payload.length);
  writeFrameHeader(frame, 0, type, payload.length);
  payload.copy(frame, frameHeaderBytes);
  return frame;
}

/**
 * Reassembles frames from the chunks a process's output is read in, which split and join frames
 * arbitrarily. A data frame's payload is handed on in pieces as its bytes arrive, views into the
 * chunks and never copied: the server only relays data, and joining each frame into a buffer of its
 * own was a third of the memory it churned per byte exported, which V8 answers with full
 * collections. Other frames are small, and come out whole, to be read
 * before `push` is called again: bytes of one not yet complete are kept in a list and joined once,
 * when it is. Nothing kept points into a chunk once `push` returns: the chunk's memory may then be
 * read into again (relay-buffers.ts), and only the pieces handed on are the caller's to keep.
 */
export class FrameParser {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Bytes still to come of the data frame being relayed. */
  private dataLeft = 0;

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let rest = this.dataLeft > 0 ? this.dataPiece(chunk, frames) : chunk;
    if (rest.length === 0) return frames;
    this.chunks.push(rest);
    this.bytes += rest.length;
    while (this.bytes >= frameHeaderBytes) {
      const head = this.chunks[0]!.length >= frameHeaderBytes ? this.chunks[0]! : this.join();
      const type = head.readUInt8(0) as FrameType;
      const end = frameHeaderBytes + head.readUInt32BE(1);
      if (type === FrameType.data) {
        this.dataLeft = end - frameHeaderBytes;
        this.take(frameHeaderBytes);
        // What is here of it now goes at once; the rest as it comes.
        const pending = this.chunks;
        this.chunks = [];
        this.bytes = 0;
        for (const piece of pending) {
          rest = this.dataPiece(piece, frames);
          if (rest.length > 0) {
            this.chunks.push(rest);
            this.bytes += rest.length;
          }
        }
        continue;
      }
      if (this.bytes < end) break;
      const all = head.length >= end ? head : this.join();
      frames.push({ type, payload: all.subarray(frameHeaderBytes, end) });
      this.take(end);
    }
    // The start of a frame not yet whole (a few bytes, or a small frame) is copied out of the chunk.
    // Pending bytes are in the order they came, and what is left of one chunk is one piece: only the
    // last can be of this one.
    const last = this.chunks.length - 1;
    if (last >= 0 && this.chunks[last]!.buffer === chunk.buffer) this.chunks[last] = Buffer.from(this.chunks[last]!);
    return frames;
  }

  /** Hands on what `chunk` holds of the data frame being relayed; returns what follows it. */
  private dataPiece(chunk: Buffer, frames: Frame[]): Buffer {
    const length = Math.min(this.dataLeft, chunk.length);
    if (length > 0) frames.push({ type: FrameType.data, payload: chunk.subarray(0, length) });
    this.dataLeft -= length;
    return chunk.subarray(length);
  }

  /** Drops the first `n` pending bytes, which the first chunk holds (joined if need be). */
  private take(n: number): void {
    const rest = this.chunks[0]!.subarray(n);
    this.chunks.shift();
    if (rest.length > 0) this.chunks.unshift(rest);
    this.bytes -= n;
  }

  /** Makes the pending chunks one buffer (the first), and returns it. */
  private join(): Buffer {
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }
}
