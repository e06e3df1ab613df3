/** What the rate limit says about one more request of a key. */
export interface RateDecision {
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Seconds until the current window ends and the count starts over. */
  resetSeconds: number;
}

/**
 * Counts requests per key. Asynchronous so that the counters can live elsewhere than in this
 * process (shared by several nodes) without changing the callers.
 */
export interface RateLimiter {
  take(key: string): Promise<RateDecision>;
}

const windowMs = 60_000;

/**
 * A fixed one-minute window per key, counted in this process's memory. Keys idle for a whole window
 * are forgotten, so memory follows the keys active in the last minute.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();
  private lastSweep = Date.now();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string): Promise<RateDecision> {
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    const allowed = window.count < this.perMinute;
    if (allowed) window.count += 1;
    return {
      allowed,
      limit: this.perMinute,
      remaining: this.perMinute - window.count,
      resetSeconds: Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)),
    };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (now - window.startedAt >= windowMs) this.windows.delete(key);
  }
}
