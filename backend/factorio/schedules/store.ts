// Schedules and their runs in SQLite. `checked_at` is the time up to which a schedule's runs have been
// dealt with (run, skipped or reported missed); the runs between it and now at start-up were missed.

import type { Db } from "../../store/db.ts";
import type { ScheduleInput, ScheduleRun, ScheduleTask } from "../../../shared/backups.ts";

interface ScheduleRow {
  id: number;
  name: string;
  cron: string;
  condition: string;
  enabled: number;
  run_missed: number;
  tasks: string;
  checked_at: number;
  created_at: number;
}

interface RunRow {
  id: number;
  schedule_id: number;
  started: number;
  finished: number | null;
  trigger: string;
  result: string;
  output: string;
}

export interface StoredSchedule extends ScheduleInput {
  id: number;
  checked_at: number;
}

/** Runs kept per schedule; older ones are dropped as new ones are recorded. */
export const RUNS_KEPT = 50;

function fromRow(r: ScheduleRow): StoredSchedule {
  return {
    id: r.id,
    name: r.name,
    cron: r.cron,
    condition: r.condition as ScheduleInput["condition"],
    enabled: r.enabled === 1,
    run_missed: r.run_missed === 1,
    tasks: JSON.parse(r.tasks) as ScheduleTask[],
    checked_at: r.checked_at,
  };
}

function runFromRow(r: RunRow): ScheduleRun {
  return {
    id: r.id,
    started: new Date(r.started).toISOString(),
    finished: r.finished === null ? null : new Date(r.finished).toISOString(),
    trigger: r.trigger as ScheduleRun["trigger"],
    result: r.result as ScheduleRun["result"],
    output: r.output,
  };
}

export class ScheduleStore {
  constructor(private readonly db: Db) {}

  all(): StoredSchedule[] {
    return (this.db.prepare("SELECT * FROM schedules ORDER BY id").all() as unknown as ScheduleRow[]).map(
      fromRow,
    );
  }

  get(id: number): StoredSchedule | null {
    const r = this.db.prepare("SELECT * FROM schedules WHERE id = ?").get(id) as unknown as
      | ScheduleRow
      | undefined;
    return r ? fromRow(r) : null;
  }

  insert(s: ScheduleInput, now: number): number {
    const r = this.db.prepare(
      `INSERT INTO schedules (name, cron, condition, enabled, run_missed, tasks, checked_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      s.name,
      s.cron,
      s.condition,
      s.enabled ? 1 : 0,
      s.run_missed ? 1 : 0,
      JSON.stringify(s.tasks),
      now,
      now,
    );
    return Number(r.lastInsertRowid);
  }

  update(id: number, s: ScheduleInput, now: number): void {
    // A changed schedule starts counting from now: runs of its old timetable are not "missed".
    this.db.prepare(
      `UPDATE schedules SET name = ?, cron = ?, condition = ?, enabled = ?, run_missed = ?, tasks = ?, checked_at = ?
       WHERE id = ?`,
    ).run(
      s.name,
      s.cron,
      s.condition,
      s.enabled ? 1 : 0,
      s.run_missed ? 1 : 0,
      JSON.stringify(s.tasks),
      now,
      id,
    );
  }

  /** Switches a schedule off, keeping where its timetable stood. */
  disable(id: number): void {
    this.db.prepare("UPDATE schedules SET enabled = 0 WHERE id = ?").run(id);
  }

  delete(id: number): void {
    this.db.prepare("DELETE FROM schedules WHERE id = ?").run(id);
  }

  checked(id: number, at: number): void {
    this.db.prepare("UPDATE schedules SET checked_at = MAX(checked_at, ?) WHERE id = ?").run(at, id);
  }

  startRun(
    scheduleId: number,
    trigger: ScheduleRun["trigger"],
    at: number,
    result: ScheduleRun["result"] = "running",
    output = "",
  ): number {
    const r = this.db.prepare(
      "INSERT INTO schedule_runs (schedule_id, started, finished, trigger, result, output) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(scheduleId, at, result === "running" ? null : at, trigger, result, output);
    this.db.prepare(
      `DELETE FROM schedule_runs WHERE schedule_id = ? AND id NOT IN
       (SELECT id FROM schedule_runs WHERE schedule_id = ? ORDER BY id DESC LIMIT ?)`,
    ).run(scheduleId, scheduleId, RUNS_KEPT);
    return Number(r.lastInsertRowid);
  }

  finishRun(runId: number, at: number, result: ScheduleRun["result"], output: string): void {
    this.db.prepare("UPDATE schedule_runs SET finished = ?, result = ?, output = ? WHERE id = ?").run(
      at,
      result,
      output,
      runId,
    );
  }

  /** Runs the panel was in the middle of when it stopped: they did not finish. */
  abandonRunning(at: number): void {
    this.db.prepare(
      "UPDATE schedule_runs SET finished = ?, result = 'failed', output = output || ? WHERE result = 'running'",
    ).run(at, "\nThe panel stopped before this run finished.");
  }

  runs(scheduleId: number, limit = 10): ScheduleRun[] {
    return (this.db.prepare("SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY id DESC LIMIT ?")
      .all(scheduleId, limit) as unknown as RunRow[]).map(runFromRow);
  }
}
