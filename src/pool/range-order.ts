/**
 * The order of a split query's ranges in its response. Ranges start in order and at most one ahead
 * of the range whose output is due (the current one), so one range's output at most waits here, in
 * memory, for its turn: `hold` says when it holds enough that its process should wait too.
 */
export class RangeOrder {
  /** The range whose output goes to the response now: every range before it has ended. */
  current = 0;
  private next = 0;
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private readonly ended = new Set<number>();

  constructor(
    readonly count: number,
    private readonly holdBytes: number,
  ) {}

  get done(): boolean {
    return this.current >= this.count;
  }

  /** Whether a range may start now. */
  get startable(): boolean {
    return this.next < this.count && this.next <= this.current + 1;
  }

  /** The next range to start (check `startable` first). */
  take(): number {
    return this.next++;
  }

  /** Keeps output of the range after the current one. False once it holds `holdBytes`: its process should wait for its turn. */
  hold(data: Buffer): boolean {
    this.held.push(data);
    this.heldBytes += data.length;
    return this.heldBytes < this.holdBytes;
  }

  /** `range` has ended. Returns the output due now: what was held for the range that became current, if one did. */
  end(range: number): Buffer[] {
    this.ended.add(range);
    if (range !== this.current) return [];
    this.current += 1;
    const due = this.held.splice(0);
    this.heldBytes = 0;
    // The range ahead may have ended already: its output was all held, and the one after it is current.
    if (this.ended.has(this.current)) return [...due, ...this.end(this.current)];
    return due;
  }
}
