// Time for schedules: the wall clock in production; tests use tests/support/clock.ts, a clock they
// move by hand, so a five-minute countdown is checked at its exact offsets without waiting five minutes.

export interface Clock {
  now(): number;
  /** Resolves after `ms` (or at once when `signal` aborts). `label` names the wait for test clocks. */
  sleep(ms: number, label: string, signal?: AbortSignal): Promise<void>;
}

/** Longest single timer: longer ones (over 2^31 ms) would fire at once, and a suspended machine's run late. */
const PIECE_MS = 60_000;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, _label, signal) =>
    new Promise<void>((resolve) => {
      const deadline = Date.now() + Math.max(0, ms);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        signal?.removeEventListener("abort", done);
        clearTimeout(timer);
        resolve();
      };
      // Waits in pieces against the wall clock, so the wake-up is on time however long the wait.
      const next = () => {
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return done();
        timer = setTimeout(next, Math.min(left, PIECE_MS));
      };
      signal?.addEventListener("abort", done);
      next();
    }),
};
