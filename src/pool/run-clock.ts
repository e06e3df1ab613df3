/**
 * A query's time limit, and the moment it becomes a long query: one timer for both, a timer fewer
 * for every query (most end long before either). It runs while the query holds a process: it is
 * stopped while the query is parked as a long query in excess, and once every row is made.
 */
export class RunClock {
  private remainingMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** When it last started (Date.now()), and when it first did (performance.now()): the query's work began. */
  private startedAt = 0;
  private firstStartedAt: number | undefined;
  private long = false;

  /** `due`: its time is up (`timeout`), or it has worked `longAfterMs` (`long`). */
  constructor(
    timeoutMs: number,
    private readonly longAfterMs: number,
    private readonly due: (what: 'timeout' | 'long') => void,
  ) {
    this.remainingMs = timeoutMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.firstStartedAt ??= performance.now();
    this.arm();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.disarm();
  }

  private arm(): void {
    this.startedAt = Date.now();
    const untilLong = this.long ? Infinity : this.longAfterMs - (performance.now() - this.firstStartedAt!);
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.min(this.remainingMs, untilLong)));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs -= Date.now() - this.startedAt;
  }

  private fire(): void {
    this.disarm();
    if (this.remainingMs <= 0) {
      this.running = false;
      return this.due('timeout');
    }
    if (!this.long && performance.now() - this.firstStartedAt! >= this.longAfterMs) {
      this.long = true;
      // The pool may park the query now, which stops the clock.
      this.due('long');
    }
    if (this.running) this.arm();
  }
}
