import { LRUCache } from 'lru-cache';

export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  /** Sign-ups from one address per window; 0: no limit. */
  signupsPerAddress: number;
  windowMs: number;
}

/**
 * Counters kept each: the most recent accounts and addresses with failures, and addresses with
 * sign-ups. A flood of made-up names or addresses pushes out the oldest counters rather than growing
 * memory (about 100 bytes each).
 */
export const keptCounters = 50_000;

/**
 * A counter's key, cut: a form's account name can be 64 KB and, behind a proxy trusted with
 * X-Forwarded-For, an address any text, and every counter kept holds its key. No account name is
 * longer than 39 characters nor address than 45, so a cut key never makes two real ones one.
 */
const accountKey = (account: string) => account.slice(0, 40).toLowerCase();
const addressKey = (address: string) => address.slice(0, 46);

interface Window {
  count: number;
  endsAt: number;
}

/**
 * Counts wrong passwords per account and per address, and sign-ups per address, in fixed windows that
 * start at the first one counted. Once either password count is at its limit, sign-ins for that
 * account or from that address are refused (before the password is even checked) until the window
 * ends: a guesser gets `perAccount` tries per window, and one address cannot try many accounts. Each
 * sign-up costs a password hash and an account, so one address gets `signupsPerAddress` per window.
 * In memory: a restart forgets, which costs a guesser no more than one window.
 */
export class LoginThrottle {
  private readonly accounts = new LRUCache<string, Window>({ max: keptCounters });
  private readonly addresses = new LRUCache<string, Window>({ max: keptCounters });
  private readonly signups = new LRUCache<string, Window>({ max: keptCounters });

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until a sign-in may be tried again for this account from this address; 0 when it may now. */
  waitSeconds(account: string, address: string): number {
    return Math.max(
      this.wait(this.accounts, accountKey(account), this.limits.perAccount),
      this.wait(this.addresses, addressKey(address), this.limits.perAddress),
    );
  }

  failed(account: string, address: string): void {
    this.count(this.accounts, accountKey(account));
    this.count(this.addresses, addressKey(address));
  }

  /** A right password clears the account's count (not the address's: it may be guessing others). */
  succeeded(account: string): void {
    this.accounts.delete(accountKey(account));
  }

  /** Seconds until this address may sign up again; 0 when it may now. */
  signupWaitSeconds(address: string): number {
    return this.limits.signupsPerAddress > 0 ? this.wait(this.signups, addressKey(address), this.limits.signupsPerAddress) : 0;
  }

  /** A sign-up from this address is about to hash its password: counted whether or not the account is then made. */
  signedUp(address: string): void {
    if (this.limits.signupsPerAddress > 0) this.count(this.signups, addressKey(address));
  }

  private wait(counters: LRUCache<string, Window>, key: string, limit: number): number {
    const window = this.current(counters, key);
    return window && window.count >= limit ? Math.ceil((window.endsAt - this.now()) / 1000) : 0;
  }

  private current(counters: LRUCache<string, Window>, key: string): Window | undefined {
    const window = counters.get(key);
    if (window && window.endsAt <= this.now()) {
      counters.delete(key);
      return undefined;
    }
    return window;
  }

  private count(counters: LRUCache<string, Window>, key: string): void {
    const window = this.current(counters, key) ?? { count: 0, endsAt: this.now() + this.limits.windowMs };
    window.count += 1;
    counters.set(key, window);
  }
}
