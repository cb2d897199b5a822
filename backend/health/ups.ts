// UPS (the game's updates per second: 60 while it keeps up) from readings of the game's clock over wall time.
// Two clocks can be read over RCON:
// - the map's age, from /time ("110 hours, 28 minutes and 57 seconds"; the wording is the simulator's,
//   tests/fake-factorio/server.ts, with its sources). No Lua runs, so the save keeps its achievements: the
//   default. It counts whole game seconds, rounded down, so one reading is up to 1 s below the truth and
//   the difference of two is off by less than 1 s of game time: over a span of W seconds of wall time the
//   estimate is within 60/W UPS. 50 s gives ±1.2 UPS (2% of 60), 60 s ±1 UPS (1.7%): the window is 60 s,
//   and a reading is `settled` once its span reaches 50 s. The game's own speed does not change this bound:
//   it is one game second whatever the rate, so ±1 UPS at 60 s is 1.7% of 60 and 3.3% of a game at 30.
// - game.tick, from `/sc rcon.print(game.tick)`: exact to a tick, so 10 s are within 0.1 UPS (plus the
//   difference in how long the two answers took). Opt-in: the first Lua command of a save is held back
//   with a warning and runs when repeated, and from then on the save's achievements are off for good. The
//   UI must say so before this is switched on.
// A paused game (auto_pause with nobody online, or a player's pause) still answers, with a clock that does
// not move: "paused". A game that does not answer at all is "no-answer"; whether that is a hung game (its
// process alive) or a stopped one is for the caller, who knows the process. /time cannot tell a game below
// 6.7 UPS from a paused one (its age may not move within 9 s); it shows as paused, and the tick clock tells
// them apart (no tick within 1 s: below 1 UPS).

export type Clock = "map-age" | "tick";

/** One reading: when it was taken (ms, Date.now()) and the clock's value (seconds or ticks); null: no answer. */
export interface ClockReading {
  at: number;
  value: number | null;
}

export type UpsReading =
  | { state: "unknown" }
  | { state: "no-answer"; since: number }
  | { state: "paused"; since: number }
  | {
    state: "running";
    ups: number;
    /** The most the estimate can be off, in UPS (from the clock's resolution over the span). */
    error: number;
    /** The error is within 2% of 60 UPS. */
    settled: boolean;
    spanMs: number;
  };

interface ClockRules {
  /** Clock units per game second. */
  perSecond: number;
  /** Wall time over which UPS is averaged. */
  windowMs: number;
  /** A clock standing still this long is a paused game. */
  pausedAfterMs: number;
}

const RULES: Record<Clock, ClockRules> = {
  "map-age": { perSecond: 1, windowMs: 60_000, pausedAfterMs: 9_000 },
  tick: { perSecond: 60, windowMs: 10_000, pausedAfterMs: 1_000 },
};

/** 2% of 60 UPS. */
const SETTLED_ERROR = 1.2;
/** Readings are taken every 10 s or so; a little slack lets a window hold a whole number of them. */
const WINDOW_SLACK_MS = 2_000;

export class UpsEstimator {
  #readings: ClockReading[] = [];
  readonly #rules: ClockRules;

  constructor(readonly clock: Clock) {
    this.#rules = RULES[clock];
  }

  /** Readings held (the window's, and the first of a run that began before it). */
  get size(): number {
    return this.#readings.length;
  }

  add(reading: ClockReading): void {
    const last = this.#readings.findLast((r) => r.value !== null);
    // A clock that went back is another run or another map: what came before says nothing about this one.
    if (reading.value !== null && last && reading.value < last.value!) this.#readings = [];
    this.#readings.push(reading);
    // Kept: the window, and the first reading of the run of one value (or of no answers) the window starts
    // in, so that a pause or a silence that began before the window still says since when.
    const all = this.#readings;
    const windowStart = all.findIndex((r) => r.at >= reading.at - this.#rules.windowMs - WINDOW_SLACK_MS);
    const runValue = all.slice(windowStart).find((r) => r.value !== null)?.value ?? null;
    let runStart = windowStart;
    while (runStart > 0 && (all[runStart - 1].value === null || all[runStart - 1].value === runValue)) {
      runStart--;
    }
    if (windowStart > 0) {
      this.#readings = [...(runStart < windowStart ? [all[runStart]] : []), ...all.slice(windowStart)];
    }
  }

  current(): UpsReading {
    const all = this.#readings;
    if (all.length === 0) return { state: "unknown" };
    const newest = all[all.length - 1];
    if (newest.value === null) {
      let i = all.length - 1;
      while (i > 0 && all[i - 1].value === null) i--;
      return { state: "no-answer", since: all[i].at };
    }
    const answered = all.filter((r) => r.value !== null);
    // Runs of one value: one lasting pausedAfterMs is a pause. The estimate starts after the last pause: the
    // step out of it holds the moment the game went on, anywhere in it.
    let start = 0;
    let run = 0;
    for (let j = 1; j < answered.length; j++) {
      if (answered[j].value !== answered[run].value) run = j;
      else if (answered[j].at - answered[run].at >= this.#rules.pausedAfterMs) start = j + 1;
    }
    if (start === answered.length) return { state: "paused", since: answered[run].at };
    const windowStart = newest.at - this.#rules.windowMs - WINDOW_SLACK_MS;
    while (start < answered.length - 1 && answered[start].at < windowStart) start++;
    const first = answered[start];
    if (first === newest || newest.at <= first.at) return { state: "unknown" };
    const seconds = (newest.at - first.at) / 1000;
    const ups = ((newest.value! - first.value!) / this.#rules.perSecond / seconds) * 60;
    const error = 60 / this.#rules.perSecond / seconds;
    return { state: "running", ups, error, settled: error <= SETTLED_ERROR, spanMs: newest.at - first.at };
  }
}

/** The command whose answer is the map's age. */
export const MAP_AGE_COMMAND = "/time";
/** The command whose answer is game.tick (a Lua command: see above). */
export const TICK_COMMAND = "/sc rcon.print(game.tick)";

const UNITS: Record<string, number> = { day: 86400, hour: 3600, minute: 60, second: 1 };

/**
 * The map's age in seconds from /time's answer ("110 hours, 28 minutes and 57 seconds", "1 hour and 5
 * seconds", "0 seconds"); days are taken too, should a version word it so. Null for anything else.
 */
export function parseMapAge(text: string): number | null {
  const parts = text.trim().split(/, | and /);
  let seconds = 0;
  for (const part of parts) {
    const m = /^(\d+) (day|hour|minute|second)s?$/.exec(part);
    if (!m) return null;
    seconds += Number(m[1]) * UNITS[m[2]];
  }
  return seconds;
}

/** game.tick from the answer to TICK_COMMAND (rcon.print ends it with a newline); null for anything else. */
export function parseTick(text: string): number | null {
  const m = /^\s*(\d+)\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** Runs one RCON command and returns the game's answer. */
export type Exec = (command: string) => Promise<string>;

/**
 * Reads one clock: the value, stamped halfway through the command's round trip; null when the game gave no
 * answer (exec threw) or one that is not the clock. The tick command is sent a second time when its first
 * answer is not a tick: the first Lua command of a save is held back with the achievements warning (the
 * answer up to 2.0; 2.1 answers nothing and says it on the console) and runs when sent again.
 */
export async function readClock(
  clock: Clock,
  exec: Exec,
  now: () => number = Date.now,
): Promise<ClockReading> {
  let sent = now();
  let value: number | null;
  try {
    if (clock === "map-age") value = parseMapAge(await exec(MAP_AGE_COMMAND));
    else {
      value = parseTick(await exec(TICK_COMMAND));
      if (value === null) {
        sent = now();
        value = parseTick(await exec(TICK_COMMAND));
      }
    }
  } catch {
    value = null;
  }
  return { at: (sent + now()) / 2, value };
}
