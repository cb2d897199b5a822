// Time for schedules: the wall clock in production; tests use backend/testing/clock.ts, a clock they
// move by hand, so a five-minute countdown is checked at its exact offsets without waiting five minutes.

export interface Clock {
  now(): number;
  /** Resolves after `ms` (or at once when `signal` aborts). `label` names the wait for test clocks. */
  sleep(ms: number, label: string, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, _label, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      // Long waits are cut into pieces: timers longer than 2^31 ms fire at once, and a suspended
      // machine's timers run late; callers re-check the time when they wake.
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 60_000)));
      function done() {
        signal?.removeEventListener("abort", done);
        clearTimeout(timer);
        resolve();
      }
      signal?.addEventListener("abort", done);
    }),
};
