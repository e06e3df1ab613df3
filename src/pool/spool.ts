import { randomBytes } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { relayBuffers } from './relay-buffers.js';

/** Disk that all spools together may use, shared between them. */
export class SpoolBudget {
  used = 0;
  /** Checks, of the spools waiting for room, whether they have it now. */
  private readonly waiting = new Set<() => void>();

  constructor(readonly maxBytes: number) {}

  wait(check: () => void): void {
    this.waiting.add(check);
  }

  stopWaiting(check: () => void): void {
    this.waiting.delete(check);
  }

  release(bytes: number): void {
    this.used -= bytes;
    for (const check of this.waiting) check();
  }
}

export interface SpoolOptions {
  /** Folder for the spool's file (created by the caller). */
  dir: string;
  /** Bytes kept in memory, the rest going to the file: a client that keeps up never touches the disk. */
  memoryBytes: number;
  /** Bytes the file may hold for this response. */
  maxFileBytes: number;
  budget: SpoolBudget;
}

type Segment = { kind: 'memory'; data: Buffer } | { kind: 'file'; offset: number; length: number; written: Promise<void> };

/**
 * A response's output that its client has not taken yet, so the query process that wrote it can
 * move on to another query, as nginx buffers an upstream's response. Chunks are kept in order:
 * in memory up to `memoryBytes`, beyond that appended to a file. The file is unlinked as soon as it
 * is opened, so a crash leaves nothing behind; it is emptied whenever the reader has caught up, and
 * closed with the spool.
 *
 * `append` returns false once the spool is full (this response's file cap, or the budget all
 * spools share): the writer should then wait for `onRoom`.
 */
export class Spool {
  private readonly segments: Segment[] = [];
  private memoryBytes = 0;
  private file: Promise<FileHandle> | undefined;
  /** Where the next byte goes in the file: the bytes of disk this spool uses. */
  private fileEnd = 0;
  /** Writes and truncations of the file, one after another. */
  private fileOps: Promise<unknown> = Promise.resolve();
  private ended = false;
  private closed = false;
  private wakeReader: (() => void) | undefined;
  private roomWaiter: (() => void) | undefined;
  private readonly checkRoom = () => {
    if (!this.roomWaiter || this.full) return;
    const resume = this.roomWaiter;
    this.roomWaiter = undefined;
    this.options.budget.stopWaiting(this.checkRoom);
    resume();
  };

  constructor(private readonly options: SpoolOptions) {}

  get full(): boolean {
    return this.fileEnd >= this.options.maxFileBytes || this.options.budget.used >= this.options.budget.maxBytes;
  }

  append(data: Buffer): boolean {
    if (this.closed || data.length === 0) return !this.full;
    if (this.memoryBytes + data.length <= this.options.memoryBytes) {
      this.segments.push({ kind: 'memory', data });
      this.memoryBytes += data.length;
    } else {
      const offset = this.fileEnd;
      this.fileEnd += data.length;
      this.options.budget.used += data.length;
      const written = this.fileOp(async (handle) => {
        let done = 0;
        while (done < data.length) done += (await handle.write(data, done, data.length - done, offset + done)).bytesWritten;
        // In the file, it is read back from there: its memory may go to another read.
        relayBuffers.release(data);
      });
      this.segments.push({ kind: 'file', offset, length: data.length, written });
    }
    this.wake();
    return !this.full;
  }

  /** Calls `resume` once the spool has room again (at once if it has). */
  onRoom(resume: () => void): void {
    if (!this.full) return resume();
    this.roomWaiter = resume;
    this.options.budget.wait(this.checkRoom);
  }

  /** No more data will come. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /**
   * The next chunk in order; null once everything was read after `end`. Rejects if the file could
   * not be written or read. A chunk read back from the file is in one of the relay buffers (as is
   * most data from the query processes): whoever sends it on gives it back.
   */
  async read(): Promise<Buffer | null> {
    while (this.segments.length === 0) {
      if (this.ended || this.closed) return null;
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
    }
    const head = this.segments[0]!;
    if (head.kind === 'memory') {
      this.segments.shift();
      this.memoryBytes -= head.data.length;
      return head.data;
    }
    await head.written;
    // Into a buffer that the reader gives back once it has sent it on (relay-buffers.ts).
    const buffer = relayBuffers.forRead();
    const length = Math.min(head.length, buffer.length);
    const handle = await this.file!;
    let got = 0;
    while (got < length) {
      const { bytesRead } = await handle.read(buffer, got, length - got, head.offset + got);
      if (bytesRead === 0) throw new Error('spool file ended early');
      got += bytesRead;
    }
    if (this.closed) {
      relayBuffers.release(buffer);
      return null;
    }
    head.offset += length;
    head.length -= length;
    if (head.length === 0) {
      this.segments.shift();
      if (!this.segments.some((s) => s.kind === 'file')) this.emptyFile();
    }
    return buffer.subarray(0, length);
  }

  /** Gives back the disk and memory; what was not read is dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.roomWaiter = undefined;
    this.options.budget.stopWaiting(this.checkRoom);
    this.segments.length = 0;
    this.memoryBytes = 0;
    this.options.budget.release(this.fileEnd);
    this.fileEnd = 0;
    this.wake();
    const file = this.file;
    if (file)
      void this.fileOps
        .then(() => file)
        .then(
          (h) => h.close(),
          () => {},
        );
  }

  /** The reader has taken everything in the file: it can start over, empty. */
  private emptyFile(): void {
    const freed = this.fileEnd;
    this.fileEnd = 0;
    void this.fileOp((handle) => handle.truncate(0)).catch(() => {});
    this.options.budget.release(freed);
    this.checkRoom();
  }

  private fileOp(op: (handle: FileHandle) => Promise<unknown>): Promise<void> {
    this.file ??= openUnlinked(this.options.dir);
    const file = this.file;
    const result = this.fileOps.then(() => file).then(op);
    this.fileOps = result.catch(() => {});
    return result.then(() => {});
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }
}

/** A new file that only its handle reaches: removed from the folder at once, gone from the disk when closed. */
async function openUnlinked(dir: string): Promise<FileHandle> {
  const file = path.join(dir, `spool-${randomBytes(8).toString('hex')}`);
  const handle = await open(file, 'wx+', 0o600);
  await rm(file);
  return handle;
}
