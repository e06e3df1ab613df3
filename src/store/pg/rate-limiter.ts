import type { StorePool } from './pool.js';
import type { RateDecision, RateLimiter } from '../../limits/rate-limiter.js';

/** Windows idle this long are deleted, at most once per this long by each node. */
const sweepMs = 60_000;

/**
 * The one statement a request costs: its key's window is started, restarted once a minute old, or
 * counted on, by the clock of the database (so the nodes' clocks do not matter). A refused request
 * is counted too, but the count stops one past the limit.
 */
const takeSql = {
  name: 'rate-take',
  text: `
  insert into rate_windows as w (key, started_at, count) values ($1, now(), 1)
  on conflict (key) do update set
    started_at = case when w.started_at <= now() - interval '1 minute' then now() else w.started_at end,
    count = case when w.started_at <= now() - interval '1 minute' then 1 else least(w.count + 1, $2::integer + 1) end
  returning count, ceil(extract(epoch from w.started_at + interval '1 minute' - now()))::integer as reset_seconds`,
};

/**
 * The rate limit of MemoryRateLimiter (a fixed one-minute window per key), counted in the
 * store's PostgreSQL database, so that it holds across every node: a key gets its requests per
 * minute in all, whichever nodes answer them.
 */
export class PgRateLimiter implements RateLimiter {
  private lastSweep = Date.now();

  constructor(
    private readonly pool: StorePool,
    private readonly perMinute: number,
  ) {}

  async take(key: string): Promise<RateDecision> {
    this.sweep();
    const { rows } = await this.pool.query<{ count: number; reset_seconds: number }>({ ...takeSql, values: [key, this.perMinute] });
    const { count, reset_seconds: resetSeconds } = rows[0]!;
    return {
      allowed: count <= this.perMinute,
      limit: this.perMinute,
      remaining: Math.max(0, this.perMinute - count),
      resetSeconds: Math.max(1, resetSeconds),
    };
  }

  /** Deletes the windows of keys idle for a minute, off the request's path. */
  private sweep(): void {
    if (Date.now() - this.lastSweep < sweepMs) return;
    this.lastSweep = Date.now();
    this.pool.query("delete from rate_windows where started_at <= now() - interval '1 minute'").catch(() => {});
  }
}
