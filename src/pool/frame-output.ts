import type { FrameDeflater } from './frame-deflater.js';
import { encodeFrame, FrameType, frameHeaderBytes, maxFramePayload, writeFrameHeader } from './protocol.js';

/** Buffers are allocated this large, and frames carved out of them one after another. */
const slabBytes = 1024 * 1024;
/** A new frame starts in a new buffer when its own has less room left than this. */
const minFrameRoom = 64 * 1024;
const utf8 = new TextEncoder();

/**
 * A query's data frames, built in place: text is encoded straight into a large buffer after the
 * room kept for its frame's header, and a frame leaves in one write of its own bytes, with no copy
 * to put a header before a payload. A frame's bytes are not touched while the socket may still hold
 * them, so the next frame starts where the last ended, in the same buffer while there is room; once
 * the socket has taken every byte written (`allSent`), from the buffer's start again. One output
 * serves every query of the process: a small query allocates nothing here, and writes to the same
 * few pages as the one before it, still in the caches (a new megabyte every few hundred small
 * queries cost a page fault each).
 */
export class FrameOutput {
  private slab = Buffer.allocUnsafe(slabBytes);
  /** Where the frame being built starts (its header). */
  private start = 0;
  /** Where its next byte goes. */
  private at = frameHeaderBytes;
  /** Set for a query whose data frames go out deflated; its frames are then sent as new buffers. */
  deflater: FrameDeflater | undefined;

  constructor(
    private readonly send: (frame: Buffer) => Promise<void>,
    private readonly allSent: () => boolean,
  ) {}

  /** Bytes in the frame being built. */
  get pending(): number {
    return this.at - this.start - frameHeaderBytes;
  }

  /** Adds text as UTF-8, sending frames as they fill (at most `maxFramePayload` bytes each). */
  async text(s: string): Promise<void> {
    this.rewind();
    // At most 3 bytes per UTF-16 code unit: when that fits, it is one copy with no check.
    if (s.length * 3 <= this.room()) {
      this.at += this.slab.write(s, this.at);
      return;
    }
    let rest = s;
    for (;;) {
      // encodeInto stops before a character that does not fit (a surrogate pair stays whole) and says how far it read.
      const { read, written } = utf8.encodeInto(rest, this.slab.subarray(this.at, this.at + this.room()));
      this.at += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      await this.flush();
    }
  }

  /** Sends the frame built so far, if it holds anything. */
  async flush(): Promise<void> {
    const length = this.pending;
    if (length === 0) return;
    if (this.deflater) {
      const data = this.deflater.deflate(this.slab.subarray(this.start + frameHeaderBytes, this.at));
      // Deflated into a buffer of its own: this room serves the next frame.
      this.discard();
      // The data frame, then the one saying how long it was before deflating, in one write.
      const frames = Buffer.allocUnsafe(2 * frameHeaderBytes + data.length + 4);
      writeFrameHeader(frames, 0, FrameType.data, data.length);
      data.copy(frames, frameHeaderBytes);
      writeFrameHeader(frames, frameHeaderBytes + data.length, FrameType.inflated, 4);
      frames.writeUInt32BE(length, 2 * frameHeaderBytes + data.length);
      await this.send(frames);
      return;
    }
    writeFrameHeader(this.slab, this.start, FrameType.data, length);
    const frame = this.slab.subarray(this.start, this.at);
    this.nextFrame();
    await this.send(frame);
  }

  /**
   * Ends the output with one last frame (the end), sent in the same write as the data before it:
   * a small query's answer is then one write, which is most of what it costs this process.
   */
  async finish(type: FrameType, payload: string): Promise<void> {
    const body = Buffer.from(payload);
    if (this.deflater || this.slab.length - this.at < frameHeaderBytes + body.length) {
      await this.flush();
      await this.send(encodeFrame(type, body));
      return;
    }
    const first = this.start;
    const length = this.pending;
    // An empty data frame is left out: its header's room takes the last frame.
    if (length > 0) writeFrameHeader(this.slab, this.start, FrameType.data, length);
    else this.at = this.start;
    writeFrameHeader(this.slab, this.at, type, body.length);
    body.copy(this.slab, this.at + frameHeaderBytes);
    this.at += frameHeaderBytes + body.length;
    const frames = this.slab.subarray(first, this.at);
    this.nextFrame();
    await this.send(frames);
  }

  /** Drops the frame being built (a query that failed midway): the next query's frames start clean. */
  discard(): void {
    this.at = this.start + frameHeaderBytes;
  }

  /** The next frame starts after the last one sent, or in a new buffer when too little room is left. */
  private nextFrame(): void {
    this.start = this.at;
    if (this.slab.length - this.start < frameHeaderBytes + minFrameRoom) {
      this.slab = Buffer.allocUnsafe(slabBytes);
      this.start = 0;
    }
    this.at = this.start + frameHeaderBytes;
  }

  /** Nothing is built yet and the socket holds none of the buffer's bytes: the next frame starts at its beginning. */
  private rewind(): void {
    if (this.pending > 0 || !this.allSent()) return;
    this.start = 0;
    this.at = frameHeaderBytes;
  }

  private room(): number {
    return Math.min(this.slab.length, this.start + frameHeaderBytes + maxFramePayload) - this.at;
  }
}
