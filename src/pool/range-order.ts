/**
 * The order of a split query's ranges in its response. Ranges start in order, at most `ahead`
 * beyond the range whose output is due (the current one); output that is not due yet (the ranges
 * ahead's, or the current range's behind output still held for it) waits here, in memory, and
 * `hold` says when a range holds enough that its process should wait. Held output goes out (`due`)
 * only as the response's spool takes it, so the spool's caps hold for a split query as for any other.
 */
export class RangeOrder {
  /** The range whose output is due: every range before it has ended and been taken whole. */
  current = 0;
  private next = 0;
  private readonly ended = new Set<number>();
  private readonly held = new Map<number, { chunks: Buffer[]; bytes: number }>();

  constructor(
    readonly count: number,
    private readonly holdBytes: number,
    private readonly ahead: number,
  ) {}

  get done(): boolean {
    return this.current >= this.count;
  }

  /** Whether a range may start now. */
  get startable(): boolean {
    return this.next < this.count && this.next <= this.current + this.ahead;
  }

  get allStarted(): boolean {
    return this.next >= this.count;
  }

  /** The next range to start (check `startable` first). */
  take(): number {
    return this.next++;
  }

  /** Whether output of `range` must be held: it is not due, or output of it held before still waits. */
  holds(range: number): boolean {
    return range !== this.current || this.held.has(range);
  }

  /** Keeps output of `range` for later. False once it holds `holdBytes` or more: its process should wait. */
  hold(range: number, data: Buffer): boolean {
    let kept = this.held.get(range);
    if (!kept) this.held.set(range, (kept = { chunks: [], bytes: 0 }));
    kept.chunks.push(data);
    kept.bytes += data.length;
    return kept.bytes < this.holdBytes;
  }

  /** Whether a process held back by `hold` may go on: its range holds less than the bound again. */
  mayGoOn(range: number): boolean {
    return (this.held.get(range)?.bytes ?? 0) < this.holdBytes;
  }

  /** `range` has ended: once its output has all gone out, the next range is current. */
  end(range: number): void {
    this.ended.add(range);
    this.advance();
  }

  /** The next output due, oldest first, if any is held; taking the last of an ended range makes the next one current. */
  due(): Buffer | undefined {
    const kept = this.held.get(this.current);
    if (!kept) return undefined;
    const data = kept.chunks.shift()!;
    kept.bytes -= data.length;
    if (kept.chunks.length === 0) {
      this.held.delete(this.current);
      this.advance();
    }
    return data;
  }

  private advance(): void {
    while (this.ended.has(this.current) && !this.held.has(this.current)) {
      this.ended.delete(this.current);
      this.current += 1;
    }
  }
}
