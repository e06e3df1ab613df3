import { write, writeSync } from 'node:fs';

/** A write to a pipe that is full (stdout is non-blocking once Node has opened it as a stream) is tried again this much later. */
const retryMs = 20;

/**
 * The log's way to a file descriptor (stdout): records are kept in memory, in the order written,
 * and leave in writes of at least `minChars` characters (or whenever `flush` is called), one write
 * under way at a time, so a request never waits for stdout and stdout's reader is woken once per
 * batch. At most `maxChars` characters are held, the batch being written included; a record past
 * that is dropped and counted. What is held when the process exits is written synchronously then.
 *
 * pino's own destination (sonic-boom) measured the UTF-8 length of its whole growing batch at each
 * record, which at 8 KB batches cost ~2 µs of every request's CPU under the bench's load;
 * lengths here are counted in characters as records arrive.
 */
export class LogOutput {
  /** Records not yet handed to a write. */
  private pending = '';
  /** Characters held: pending, and the batch being written. */
  private held = 0;
  private writing = false;
  /** Set when stdout refused for good (closed, EPIPE): records are dropped from then on. */
  private broken = false;
  private waiters: (() => void)[] = [];
  private droppedRecords = 0;

  constructor(
    private readonly fd: number,
    private readonly limits: { minChars: number; maxChars: number },
  ) {
    process.on('exit', () => this.writeHeldSync());
  }

  /** Records dropped because stdout did not keep up, or refused them. */
  get dropped(): number {
    return this.droppedRecords;
  }

  /** Takes one record (a line, its newline included). False when it was dropped. */
  write(record: string): boolean {
    if (this.broken || this.held + record.length > this.limits.maxChars) {
      this.droppedRecords += 1;
      return false;
    }
    this.pending += record;
    this.held += record.length;
    if (!this.writing && this.pending.length >= this.limits.minChars) this.writeBatch();
    return true;
  }

  /** Starts writing what is held, however little, unless a write is under way (what is held then follows it). */
  writeHeld(): void {
    if (!this.writing && this.pending.length > 0) this.writeBatch();
  }

  /** Writes what is held, however little; resolves once everything held now has left, or cannot. */
  flush(): Promise<void> {
    if (this.held === 0 || this.broken) return Promise.resolve();
    const written = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.writeHeld();
    return written;
  }

  private writeBatch(): void {
    const text = this.pending;
    this.pending = '';
    this.writing = true;
    const bytes = Buffer.from(text);
    const next = (at: number) => {
      write(this.fd, bytes, at, bytes.length - at, null, (err, n) => {
        if (err && (err as NodeJS.ErrnoException).code === 'EAGAIN') {
          setTimeout(() => next(at), retryMs);
          return;
        }
        if (err) return this.fail(bytes.subarray(at));
        if (at + n < bytes.length) return next(at + n);
        this.held -= text.length;
        this.writing = false;
        if (this.pending.length > 0 && (this.pending.length >= this.limits.minChars || this.waiters.length > 0)) this.writeBatch();
        else this.wake();
      });
    };
    next(0);
  }

  /** stdout is gone: what is held is lost, and counted. */
  private fail(unwritten: Buffer): void {
    this.broken = true;
    this.droppedRecords += countLines(unwritten) + countLines(this.pending);
    this.pending = '';
    this.held = 0;
    this.writing = false;
    this.wake();
  }

  private wake(): void {
    if (this.pending.length > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * At exit, with no event loop left: the records not yet handed to a write. A write under way is
   * the thread pool's, and finishes on its own.
   */
  private writeHeldSync(): void {
    if (this.broken || this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending);
    this.pending = '';
    let at = 0;
    while (at < bytes.length) {
      try {
        at += writeSync(this.fd, bytes, at);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, retryMs);
      }
    }
  }
}

/** Records in `text`: one newline each, counted in the bytes or the string as they are. */
function countLines(text: Buffer | string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}
