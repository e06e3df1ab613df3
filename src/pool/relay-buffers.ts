/**
 * The buffers the server reads its query processes' output into, used again once what was read
 * has been sent on. Read the usual way, every read of a process's output is memory of its own
 * outside V8's heap, freed only by a young-generation collection, which V8 makes only once 32 MB of
 * such memory is waiting: a server relaying an export held ~32 MB of garbage at any moment, most of
 * its memory growth during one, as measured.
 *
 * A buffer handed out for a read counts its users: the read itself, then each piece of data kept
 * from it (`keep`), which whoever sends the piece on gives back (`release`) once it is sent. At
 * none, the buffer is free for another read. A piece never given back (a response cut short, a
 * frame dropped) only keeps its buffer from being used again: the garbage collector takes it then,
 * as it took every read before. Giving back a buffer that is not one of these does nothing.
 */
export class RelayBuffers {
  /** Reads made into these buffers, and buffers made for them: the reads beyond used one again. */
  reads = 0;
  allocated = 0;
  private readonly free: Buffer[] = [];
  /** Users of each buffer handed out; weak, so that a buffer never given back is still collected. */
  private readonly users = new WeakMap<ArrayBufferLike, { buffer: Buffer; count: number }>();

  /**
   * @param bufferBytes each buffer's size: what one read takes at most
   * @param keepFree free buffers kept for reads to come, at most; more given back are left to the garbage collector
   */
  constructor(
    readonly bufferBytes = 64 * 1024,
    readonly keepFree = 64,
  ) {}

  /** Free buffers held now. */
  get freeCount(): number {
    return this.free.length;
  }

  /** A buffer to read into; the read is its one user until it is released. */
  forRead(): Buffer {
    this.reads += 1;
    const buffer = this.free.pop() ?? this.allocate();
    this.users.set(buffer.buffer, { buffer, count: 1 });
    return buffer;
  }

  /**
   * A piece of a read to keep after the read: the piece itself, its buffer counting one more user,
   * or, for a piece under a quarter of its buffer, a copy. A kept piece then never holds more than
   * four times its size (a small answer or the tail of a frame would otherwise hold a whole buffer).
   */
  keep(piece: Buffer): Buffer {
    const held = this.users.get(piece.buffer);
    if (!held) return piece;
    if (piece.length * 4 < held.buffer.length) return Buffer.from(piece);
    held.count += 1;
    return piece;
  }

  private allocate(): Buffer {
    this.allocated += 1;
    return Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  /** A user of `chunk`'s buffer is done with it: the read, or a kept piece once sent. */
  release(chunk: Buffer): void {
    const held = this.users.get(chunk.buffer);
    if (!held) return;
    held.count -= 1;
    if (held.count > 0) return;
    this.users.delete(chunk.buffer);
    if (this.free.length < this.keepFree) this.free.push(held.buffer);
  }
}

/** The server's: one for all its query processes, as reads end and sends complete in any order between them. */
export const relayBuffers = new RelayBuffers();

/** For whoever sends a query's output on: gives back `chunk`'s buffer, if it is one of `relayBuffers`. */
export const releaseRelayed = (chunk: Buffer): void => relayBuffers.release(chunk);
