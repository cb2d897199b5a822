// Schedules: cron timetables with a condition and an ordered list of tasks. One loop sleeps until the
// next due schedule (at most a minute, so clock changes are noticed), runs what is due, and records
// each run with its result and output. At start-up, runs missed while the panel was down are reported,
// and run once when the schedule asks for it. A failed run sends a push alert.

import type { Logger } from "../../lib/log.ts";
import { Invalid, NotFound } from "../../lib/errors.ts";
import {
  type Schedule,
  type ScheduleInput,
  scheduleProblem,
  type ScheduleRun,
  type ScheduleTask,
} from "../../../shared/backups.ts";
import * as cron from "./cron.ts";
import type { ScheduleStore, StoredSchedule } from "./store.ts";
import { runTask, type TaskDeps } from "./tasks.ts";

export interface SchedulerDeps extends TaskDeps {
  store: ScheduleStore;
  log: Logger;
  timeZone: string;
  alert: (title: string, body: string) => void;
}

const ONLINE_COUNT = /\((\d+)\)/;

type Cron = typeof cron;

export class Scheduler {
  /** Ends the loop and cuts countdowns short when the panel shuts down. */
  #abort = new AbortController();
  /** Wakes the loop early (a schedule was added or changed). */
  #wakeUp = new AbortController();
  #running = new Map<number, Promise<void>>();
  #loop: Promise<void> | null = null;

  constructor(private readonly deps: SchedulerDeps) {}

  /**
   * Reports (and maybe runs) what was missed while the panel was down, closes runs an ended panel left
   * going, then starts the timetable.
   */
  start(): void {
    const { store, clock } = this.deps;
    const now = clock.now();
    store.abandonRunning(now);
    this.#catchUp(cron, now);
    this.#loop = this.#tick(cron);
  }

  #catchUp({ parseCron, runsBetween, zonedIso }: Cron, now: number): void {
    const { store } = this.deps;
    for (const s of store.all()) {
      if (!s.enabled) continue;
      // Read here, not before the loop: without schedules the (system) time zone is never worked out.
      const timeZone = this.deps.timeZone;
      const invalid = cronProblem(parseCron, s.cron, timeZone);
      if (invalid) {
        // Saved by hand in panel.db or by an older panel: it cannot run, but it must not keep the panel
        // (and every other schedule) from starting. Off, with the reason where the admin looks.
        store.disable(s.id);
        store.startRun(
          s.id,
          "cron",
          now,
          "failed",
          `${invalid} The schedule was switched off at start-up: correct the expression and switch it on again.`,
        );
        this.deps.log.warn("A schedule's cron expression does not parse: switched it off", {
          schedule: s.id,
          cron: s.cron,
          error: invalid,
        });
        continue;
      }
      const missed = runsBetween(s.cron, timeZone, s.checked_at, now);
      store.checked(s.id, now);
      if (missed.length === 0) continue;
      const first = zonedIso(missed[0], timeZone);
      const what = missed.length === 1
        ? `the run of ${first}`
        : `${missed.length} runs (the first at ${first})`;
      const then = s.run_missed ? "running it once now" : "not run (the schedule does not run missed runs)";
      store.startRun(s.id, "missed", now, "missed", `Missed ${what} while the panel was down; ${then}.`);
      this.deps.log.warn("Schedule runs were missed while the panel was down", {
        schedule: s.id,
        missed: missed.length,
      });
      if (s.run_missed) this.#launch(s, "missed");
    }
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    await Promise.allSettled([...this.#running.values()]);
  }

  async #tick({ parseCron }: Cron): Promise<void> {
    const { store, clock } = this.deps;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      const now = clock.now();
      let wake = now + 60_000;
      for (const s of store.all()) {
        if (!s.enabled) continue;
        let next: Date | null;
        try {
          next = parseCron(s.cron, this.deps.timeZone).nextRun(new Date(s.checked_at));
        } catch {
          continue; // stored expressions were checked when saved; a time zone change could still break one
        }
        if (!next) continue;
        if (next.getTime() <= now) {
          store.checked(s.id, now);
          this.#launch(s, "cron");
        } else {
          wake = Math.min(wake, next.getTime());
        }
      }
      this.#wakeUp = new AbortController();
      await clock.sleep(wake - now, "cron", AbortSignal.any([signal, this.#wakeUp.signal]));
    }
  }

  #launch(s: StoredSchedule, trigger: ScheduleRun["trigger"]): number {
    const { store, clock } = this.deps;
    if (this.#running.has(s.id)) {
      return store.startRun(
        s.id,
        trigger,
        clock.now(),
        "skipped",
        "Skipped: the previous run of this schedule is still going.",
      );
    }
    const runId = store.startRun(s.id, trigger, clock.now());
    const p = this.#execute(s, trigger, runId)
      .catch((e) =>
        this.deps.log.error("A schedule run failed unexpectedly", { schedule: s.id, error: String(e) })
      )
      .finally(() => this.#running.delete(s.id));
    this.#running.set(s.id, p);
    return runId;
  }

  async #conditionHolds(s: StoredSchedule): Promise<string | null> {
    const { game } = this.deps;
    const running = game.status().status === "running";
    if (s.condition === "always") return null;
    if (s.condition === "running") return running ? null : "the server is not running";
    let online = 0;
    if (running) {
      const reply = await game.rcon("/players online count");
      online = Number(ONLINE_COUNT.exec(reply)?.[1] ?? "0");
    }
    if (s.condition === "players-online") return online > 0 ? null : "nobody is online";
    return online === 0 ? null : `${online} player${online === 1 ? " is" : "s are"} online`;
  }

  async #execute(s: StoredSchedule, trigger: ScheduleRun["trigger"], runId: number): Promise<void> {
    const { store, clock } = this.deps;
    const signal = this.#abort.signal;
    const start = clock.now();
    const lines: string[] = [];
    // Each line carries the offset at which its task began.
    const offset = () => Math.round((clock.now() - start) / 1000);
    const note = (text: string, at = offset()) => lines.push(`[+${at}s] ${text}`);
    if (trigger !== "manual") {
      const why = await this.#conditionHolds(s).catch((e) =>
        `the condition could not be checked: ${(e as Error).message}`
      );
      if (why) {
        store.finishRun(runId, clock.now(), "skipped", `Skipped: ${why}.`);
        return;
      }
    }
    let failed = false;
    for (const [i, task] of s.tasks.entries()) {
      if (task.delay_s > 0) await clock.sleep(task.delay_s * 1000, "delay", signal);
      if (signal.aborted) {
        note("the panel shut down; the remaining tasks did not run");
        failed = true;
        break;
      }
      const at = offset();
      try {
        note(`${task.type}: ${await runTask(task, this.deps, signal)}`, at);
      } catch (e) {
        failed = true;
        note(`${task.type} FAILED: ${(e as Error).message}`, at);
        if (!task.continue_on_failure) {
          if (i < s.tasks.length - 1) note("stopped here (the task does not continue on failure)");
          break;
        }
      }
    }
    const output = lines.join("\n");
    store.finishRun(runId, clock.now(), failed ? "failed" : "ok", output);
    if (failed) {
      this.deps.log.warn("A scheduled run failed", { schedule: s.id, output });
      this.deps.alert(
        `Schedule "${s.name}" failed`,
        lines.filter((l) => l.includes("FAILED")).join(" ").slice(0, 300),
      );
    }
  }

  // ---- What the routes use ----

  #view({ describeCron, nextRuns, parseCron, zonedIso }: Cron, s: StoredSchedule): Schedule {
    const { timeZone, clock, store } = this.deps;
    const { checked_at: _c, ...rest } = s;
    const invalid = cronProblem(parseCron, s.cron, timeZone);
    return {
      ...rest,
      description: invalid ?? describeCron(s.cron),
      next_runs: s.enabled && !invalid
        ? nextRuns(s.cron, timeZone, clock.now(), 3).map((d) => zonedIso(d, timeZone))
        : [],
      time_zone: timeZone,
      last_runs: store.runs(s.id),
    };
  }

  async list(): Promise<Schedule[]> {
    return this.deps.store.all().map((s) => this.#view(cron, s));
  }

  async get(id: number): Promise<Schedule> {
    return this.#view(cron, this.#find(id));
  }

  #find(id: number): StoredSchedule {
    const s = Number.isInteger(id) ? this.deps.store.get(id) : null;
    if (!s) throw new NotFound("No such schedule.");
    return s;
  }

  /** The form's live preview: words and the next three runs. */
  async preview(
    expression: unknown,
  ): Promise<{ description: string; next_runs: string[]; time_zone: string }> {
    const { describeCron, nextRuns, parseCron, zonedIso } = cron;
    const { timeZone, clock } = this.deps;
    parseCron(expression, timeZone);
    const expr = String(expression).trim();
    return {
      description: describeCron(expr),
      next_runs: nextRuns(expr, timeZone, clock.now(), 3).map((d) => zonedIso(d, timeZone)),
      time_zone: timeZone,
    };
  }

  #input({ parseCron }: Cron, body: Record<string, unknown>): ScheduleInput {
    const problem = scheduleProblem(body);
    if (problem) throw new Invalid(problem);
    parseCron(body.cron, this.deps.timeZone);
    const tasks = (body.tasks as Record<string, unknown>[]).map((t): ScheduleTask => {
      const task: ScheduleTask = {
        type: t.type as ScheduleTask["type"],
        delay_s: (t.delay_s as number | undefined) ?? 0,
      };
      if (typeof t.text === "string") task.text = t.text.trim();
      if (t.countdown_s !== undefined) task.countdown_s = t.countdown_s as number;
      if (t.include !== undefined) task.include = t.include as ScheduleTask["include"];
      if (t.continue_on_failure === true) task.continue_on_failure = true;
      return task;
    });
    return {
      name: (body.name as string).trim(),
      cron: (body.cron as string).trim().split(/\s+/).join(" "),
      condition: body.condition as ScheduleInput["condition"],
      enabled: body.enabled as boolean,
      run_missed: body.run_missed === true,
      tasks,
    };
  }

  async create(body: Record<string, unknown>): Promise<Schedule> {
    const id = this.deps.store.insert(this.#input(cron, body), this.deps.clock.now());
    this.#wake();
    return this.#view(cron, this.#find(id));
  }

  async update(id: number, body: Record<string, unknown>): Promise<Schedule> {
    this.#find(id);
    this.deps.store.update(id, this.#input(cron, body), this.deps.clock.now());
    this.#wake();
    return this.#view(cron, this.#find(id));
  }

  delete(id: number): void {
    this.#find(id);
    this.deps.store.delete(id);
  }

  /** Starts a run now (the condition does not apply to a run asked for by hand); answers it as started. */
  runNow(id: number): ScheduleRun {
    const runId = this.#launch(this.#find(id), "manual");
    return this.deps.store.runs(id, RUNS_LOOKBACK).find((r) => r.id === runId)!;
  }

  /** Waits for a schedule's current run (tests). */
  async settled(id: number): Promise<void> {
    await this.#running.get(id);
  }

  /** A new or changed schedule may be due sooner than the loop's next wake-up. */
  #wake(): void {
    this.#wakeUp.abort();
  }
}

const RUNS_LOOKBACK = 5;

/** Why a stored expression does not parse (in the form's words), or null when it does. */
function cronProblem(parseCron: Cron["parseCron"], expr: string, timeZone: string): string | null {
  try {
    parseCron(expr, timeZone);
    return null;
  } catch (e) {
    if (e instanceof Invalid) return e.message;
    throw e;
  }
}
