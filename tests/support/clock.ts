// A clock for schedule tests: time moves only when the test says so, and the test can see what the code
// under test is waiting for (each wait is labelled: "cron", "delay", "warn").

import type { Clock } from "../../backend/factorio/schedules/clock.ts";

interface Sleeper {
  at: number;
  label: string;
  resolve: () => void;
}

/** A clock that moves only when the test says so. */
export class TestClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];
  #watchers: (() => void)[] = [];

  constructor(start: number) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, label: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const s: Sleeper = { at: this.#now + Math.max(0, ms), label, resolve };
      this.#sleepers.push(s);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((x) => x !== s);
        resolve();
      });
      for (const w of this.#watchers.splice(0)) w();
    });
  }

  /** Waits until something sleeps under `label` (the code under test has reached its next wait). */
  async waitForSleeper(label: string, timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const s = this.#sleepers.find((x) => x.label === label);
      if (s) return s.at;
      if (Date.now() > deadline) throw new Error(`nothing slept as "${label}" within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 200);
        this.#watchers.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Moves the clock to the earliest sleeper labelled `label` and wakes it (and any due before it). */
  fire(label: string): number {
    const s = this.#sleepers.filter((x) => x.label === label).sort((a, b) => a.at - b.at)[0];
    if (!s) throw new Error(`nothing sleeps as "${label}"`);
    this.#now = Math.max(this.#now, s.at);
    const due = this.#sleepers.filter((x) => x.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((x) => x.at > this.#now);
    for (const x of due) x.resolve();
    return this.#now;
  }

  /** Sets the time (forward only) and wakes every sleeper that is due. */
  set(ms: number): void {
    this.#now = Math.max(this.#now, ms);
    const due = this.#sleepers.filter((x) => x.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((x) => x.at > this.#now);
    for (const x of due) x.resolve();
  }
}
