/**
 * The only contract between the server and its query processes.
 * Jobs go to a child over IPC; results come back on the child's stdout as frames
 * `[type u8][length u32 BE][payload]`, so data, end and error stay in order on one channel.
 */
import type { AtomFeed } from '../formats/atom.js';

export interface QueryJob {
  /** Identifies the scraper; the child keeps one open connection per scraper. */
  scraperId: number;
  /** The data version's SQLite file, opened read-only. */
  file: string;
  sql: string;
  format: string;
  callback?: string;
  /** For atom: the feed's own metadata, built by the route (absolute URLs, no key). */
  feed?: AtomFeed;
}

export interface RunMessage {
  type: 'run';
  job: QueryJob;
}

export const FrameType = { data: 1, end: 2, error: 3 } as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export interface EndPayload {
  rows: number;
}

/**
 * `sql`: SQLite refused or failed the query; `not-read`: the statement would not only read;
 * `columns`: the query lacks columns its format needs (listed in `missing`);
 * `resources`: the result outgrew what a process can hold; `internal`: our fault (data file unreadable).
 */
export interface ErrorPayload {
  kind: 'sql' | 'not-read' | 'columns' | 'resources' | 'internal';
  message: string;
  missing?: string[];
}

export interface Frame {
  type: FrameType;
  payload: Buffer;
}

const headerBytes = 5;

export function encodeFrame(type: FrameType, payload: Buffer): Buffer {
  const header = Buffer.allocUnsafe(headerBytes);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** Reassembles frames from stdout chunks, which split and join frames arbitrarily. */
export class FrameParser {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Frame[] = [];
    while (this.pending.length >= headerBytes) {
      const length = this.pending.readUInt32BE(1);
      if (this.pending.length < headerBytes + length) break;
      frames.push({
        type: this.pending.readUInt8(0) as FrameType,
        payload: this.pending.subarray(headerBytes, headerBytes + length),
      });
      this.pending = this.pending.subarray(headerBytes + length);
    }
    return frames;
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
  }
}
