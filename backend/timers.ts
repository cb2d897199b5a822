// The backend's timers: setTimeout, setInterval and their clear functions, shaped like the global ones, for
// modules to import instead of using the globals (timers_test.ts holds every backend module to that).
//
// Why: under Deno the global setTimeout and setInterval are Node's timers, and the first call loads Deno's
// Node compatibility layer: 9-12 ms of a cold start and memory that stays (backend/fs.ts says why the panel
// keeps that layer out of its start). These run on AbortSignal.timeout, a web API that loads nothing:
// - armed, a timer keeps the process alive, as a global one does;
// - cleared, its listener is removed and it no longer does (the signal still fires later, unheard);
// - a callback that throws ends the process with its error, as one of a global timer does.

/**
 * Whether `at`, a Date.now() reading, is less than `ms` before `now`: for what is looked at again at most
 * every `ms` and asked on every request (the status, the session check). Date.now() costs half as much
 * as performance.now(), which is a call out of JavaScript; a clock set back counts as time gone by.
 */
export function recent(at: number, ms: number, now: number): boolean {
  return now >= at && now - at < ms;
}

/** Longest delay a timer takes; a longer one is cut to it (the globals would fire at once instead). */
const MAX_MS = 2 ** 31 - 1;

export class Timer {
  #fn: () => void;
  #repeat: number | null;
  #signal: AbortSignal | null = null;
  #fire: (() => void) | null = null;

  constructor(fn: () => void, ms: number, repeat: boolean) {
    this.#fn = fn;
    const delay = Math.min(MAX_MS, Math.max(0, Number.isFinite(ms) ? ms : 0));
    // An interval of 0 would run back to back; Node's timers make it 1 ms, and so does this.
    this.#repeat = repeat ? Math.max(1, delay) : null;
    this.#arm(repeat ? this.#repeat! : delay);
  }

  #arm(ms: number): void {
    const signal = AbortSignal.timeout(ms);
    const fire = () => {
      this.#signal = this.#fire = null;
      if (this.#repeat !== null) this.#arm(this.#repeat);
      this.#fn();
    };
    signal.addEventListener("abort", fire, { once: true });
    this.#signal = signal;
    this.#fire = fire;
  }

  /** Whether the callback is still to run (again, for an interval). */
  get pending(): boolean {
    return this.#signal !== null;
  }

  clear(): void {
    if (this.#signal && this.#fire) this.#signal.removeEventListener("abort", this.#fire);
    this.#signal = this.#fire = null;
    this.#repeat = null;
  }
}

export function setTimeout(fn: () => void, ms = 0): Timer {
  return new Timer(fn, ms, false);
}

export function setInterval(fn: () => void, ms: number): Timer {
  return new Timer(fn, ms, true);
}

export function clearTimeout(timer: Timer | undefined | null): void {
  timer?.clear();
}

export const clearInterval: (timer: Timer | undefined | null) => void = clearTimeout;
