// Sign-in rate limiting: failed attempts are counted per username and per client address in a sliding
// window. While either key is over its limit every attempt is refused, correct password or not, and the
// answer says how long to wait.

export interface RateLimitRule {
  max: number;
  windowMs: number;
}

export class SlidingWindowLimiter {
  #failures = new Map<string, number[]>();

  constructor(private readonly rule: RateLimitRule, private readonly now: () => number) {}

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string): number {
    const list = this.#prune(key);
    if (list.length < this.rule.max) return 0;
    return list[list.length - this.rule.max] + this.rule.windowMs - this.now();
  }

  fail(key: string): void {
    const list = this.#prune(key);
    list.push(this.now());
    this.#failures.set(key, list);
    if (this.#failures.size > 10_000) this.#sweep();
  }

  reset(key: string): void {
    this.#failures.delete(key);
  }

  #prune(key: string): number[] {
    const cutoff = this.now() - this.rule.windowMs;
    const list = (this.#failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length === 0) this.#failures.delete(key);
    return list;
  }

  /** Bounds memory when someone sprays random usernames. */
  #sweep(): void {
    for (const key of [...this.#failures.keys()]) this.#prune(key);
  }
}

export const LOGIN_LIMITS = {
  perUsername: { max: 10, windowMs: 15 * 60_000 },
  perAddress: { max: 30, windowMs: 15 * 60_000 },
} as const;

export class LoginLimiter {
  readonly byUser: SlidingWindowLimiter;
  readonly byAddress: SlidingWindowLimiter;

  constructor(now: () => number) {
    this.byUser = new SlidingWindowLimiter(LOGIN_LIMITS.perUsername, now);
    this.byAddress = new SlidingWindowLimiter(LOGIN_LIMITS.perAddress, now);
  }

  retryAfterMs(username: string, address: string): number {
    return Math.max(this.byUser.retryAfterMs(username.toLowerCase()), this.byAddress.retryAfterMs(address));
  }

  failed(username: string, address: string): void {
    this.byUser.fail(username.toLowerCase());
    this.byAddress.fail(address);
  }

  succeeded(username: string): void {
    this.byUser.reset(username.toLowerCase());
  }
}
