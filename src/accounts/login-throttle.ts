import { LruCache } from '../store/lru-cache.js';

export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

/**
 * Counters kept each: the most recent accounts and addresses with failures. A flood of made-up names
 * or addresses pushes out the oldest counters rather than growing memory (about 100 bytes each).
 */
const keptCounters = 50_000;

interface Window {
  failures: number;
  endsAt: number;
}

/**
 * Counts wrong passwords per account and per address in fixed windows that start at the first
 * failure. Once either is at its limit, sign-ins for that account or from that address are refused
 * (before the password is even checked) until the window ends: a guesser gets `perAccount` tries per
 * window, and one address cannot try many accounts. In memory: a restart forgets, which costs a
 * guesser no more than one window.
 */
export class LoginThrottle {
  private readonly accounts = new LruCache<string, Window>(keptCounters);
  private readonly addresses = new LruCache<string, Window>(keptCounters);

  constructor(private readonly limits: ThrottleLimits, private readonly now: () => number = Date.now) {}

  /** Seconds until a sign-in may be tried again for this account from this address; 0 when it may now. */
  waitSeconds(account: string, address: string): number {
    const wait = (counters: LruCache<string, Window>, key: string, limit: number) => {
      const window = this.current(counters, key);
      return window && window.failures >= limit ? Math.ceil((window.endsAt - this.now()) / 1000) : 0;
    };
    return Math.max(wait(this.accounts, account.toLowerCase(), this.limits.perAccount), wait(this.addresses, address, this.limits.perAddress));
  }

  failed(account: string, address: string): void {
    this.count(this.accounts, account.toLowerCase());
    this.count(this.addresses, address);
  }

  /** A right password clears the account's count (not the address's: it may be guessing others). */
  succeeded(account: string): void {
    this.accounts.delete(account.toLowerCase());
  }

  private current(counters: LruCache<string, Window>, key: string): Window | undefined {
    const window = counters.get(key);
    if (window && window.endsAt <= this.now()) {
      counters.delete(key);
      return undefined;
    }
    return window;
  }

  private count(counters: LruCache<string, Window>, key: string): void {
    const window = this.current(counters, key) ?? { failures: 0, endsAt: this.now() + this.limits.windowMs };
    window.failures += 1;
    counters.set(key, window);
  }
}
