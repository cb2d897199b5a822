// Sign-in rate limiting.
//
// Every attempt is counted (reserved) before its password is checked, so parallel requests cannot all
// slip under the limit while the hashes run; a correct password gives its reservation back.
//
// The hard limits are per username AND client address (10 per 15 minutes) and per address (30), so a
// stranger's failures never lock the owner out of their own address. Failures for a username summed over
// all addresses add a slower, growing wait (1 minute after 10, doubling up to 15 minutes) that applies only
// to addresses the user has not signed in from before: a spread-out guesser slows to a crawl while the
// owner at home or on their phone signs in as usual. The trade-off: the owner on a new network during an
// attack waits that backoff, and a guesser on an address the owner used (a shared NAT) is held only by
// the per-address limits.

export interface RateLimitRule {
  max: number;
  windowMs: number;
}

interface Entry {
  at: number;
}

export class SlidingWindowLimiter {
  #entries = new Map<string, Entry[]>();

  constructor(private readonly rule: RateLimitRule, private readonly now: () => number) {}

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string): number {
    const list = this.#prune(key);
    if (list.length < this.rule.max) return 0;
    return list[list.length - this.rule.max].at + this.rule.windowMs - this.now();
  }

  count(key: string): number {
    return this.#prune(key).length;
  }

  last(key: string): number | null {
    const list = this.#prune(key);
    return list.length ? list[list.length - 1].at : null;
  }

  /** Counts an attempt now; the returned function takes it back (a correct password). */
  reserve(key: string): () => void {
    const list = this.#prune(key);
    const entry = { at: this.now() };
    list.push(entry);
    this.#entries.set(key, list);
    if (this.#entries.size > 10_000) this.#sweep();
    return () => {
      const current = this.#entries.get(key);
      const i = current?.indexOf(entry) ?? -1;
      if (i !== -1) current!.splice(i, 1);
    };
  }

  reset(key: string): void {
    this.#entries.delete(key);
  }

  #prune(key: string): Entry[] {
    const cutoff = this.now() - this.rule.windowMs;
    const list = (this.#entries.get(key) ?? []).filter((e) => e.at > cutoff);
    if (list.length === 0) this.#entries.delete(key);
    return list;
  }

  /** Bounds memory when someone sprays random usernames. */
  #sweep(): void {
    for (const key of [...this.#entries.keys()]) this.#prune(key);
  }
}

export const LOGIN_LIMITS = {
  perUserAddress: { max: 10, windowMs: 15 * 60_000 },
  perAddress: { max: 30, windowMs: 15 * 60_000 },
  /** Failures of one username from every address, counted for the global backoff. */
  perUsername: { max: 10, windowMs: 60 * 60_000 },
  backoffFirstMs: 60_000,
  backoffMaxMs: 15 * 60_000,
  /**
   * Wrong second-step codes of one user from every address together. Whoever is there has the password,
   * so neither the password step nor another address starts it over.
   */
  secondStepPerUser: { max: 10, windowMs: 15 * 60_000 },
} as const;

export class LoginLimiter {
  readonly byUserAddress: SlidingWindowLimiter;
  readonly byAddress: SlidingWindowLimiter;
  readonly byUser: SlidingWindowLimiter;
  /** Failed second steps per user (auth/secondfactor.ts), never given back or reset. */
  readonly secondSteps: SlidingWindowLimiter;

  constructor(private readonly now: () => number) {
    this.byUserAddress = new SlidingWindowLimiter(LOGIN_LIMITS.perUserAddress, now);
    this.byAddress = new SlidingWindowLimiter(LOGIN_LIMITS.perAddress, now);
    this.byUser = new SlidingWindowLimiter(LOGIN_LIMITS.perUsername, now);
    this.secondSteps = new SlidingWindowLimiter(LOGIN_LIMITS.secondStepPerUser, now);
  }

  /** Milliseconds before this attempt may be checked; `knownAddress`: the user signed in from it before. */
  retryAfterMs(username: string, address: string, knownAddress: boolean): number {
    const user = username.toLowerCase();
    const hard = Math.max(
      this.byUserAddress.retryAfterMs(`${user}\n${address}`),
      this.byAddress.retryAfterMs(address),
    );
    if (hard > 0 || knownAddress) return hard;
    const failures = this.byUser.count(user);
    if (failures < LOGIN_LIMITS.perUsername.max) return 0;
    const backoff = Math.min(
      LOGIN_LIMITS.backoffFirstMs * 2 ** (failures - LOGIN_LIMITS.perUsername.max),
      LOGIN_LIMITS.backoffMaxMs,
    );
    return Math.max(0, this.byUser.last(user)! + backoff - this.now());
  }

  /** Counts the attempt before its password is checked; call the result when the password was right. */
  reserve(username: string, address: string): () => void {
    const user = username.toLowerCase();
    const undo = [
      this.byUserAddress.reserve(`${user}\n${address}`),
      this.byAddress.reserve(address),
      this.byUser.reserve(user),
    ];
    return () => {
      for (const u of undo) u();
      this.byUserAddress.reset(`${user}\n${address}`);
    };
  }
}
