// Schedules: tasks (warn, save, back up, restart, ...) run at the times of a cron expression.

import { z } from "zod";
import type { Routes } from "./route.ts";
import { SCHEDULE_CONDITIONS, TASK_TYPES } from "../backups.ts";
import { BackupInclude } from "./backups.ts";

export const ScheduleTask = z.object({
  type: z.enum(TASK_TYPES),
  /** Seconds to wait before this task (after the previous one). */
  delay_s: z.number(),
  /** warn: the chat text; "{time}" becomes the time left ("5 minutes"). command: the console command. */
  text: z.string().optional(),
  /** warn: how long the countdown lasts; the chat line repeats at 30, 15, 10, 5, 2 and 1 minutes, 30 and 10 s. */
  countdown_s: z.number().optional(),
  /** backup: what to include besides the save. */
  include: z.array(BackupInclude).optional(),
  continue_on_failure: z.boolean().optional(),
});
export type ScheduleTask = z.infer<typeof ScheduleTask>;

export const ScheduleInput = z.object({
  name: z.string(),
  cron: z.string(),
  condition: z.enum(SCHEDULE_CONDITIONS),
  enabled: z.boolean(),
  tasks: z.array(ScheduleTask),
  /** Runs missed while the panel was down: run once at start-up (otherwise only reported). */
  run_missed: z.boolean(),
});
export type ScheduleInput = z.infer<typeof ScheduleInput>;

export const ScheduleRun = z.object({
  id: z.number(),
  started: z.string(),
  finished: z.string().nullable(),
  /** What started it. */
  trigger: z.enum(["cron", "manual", "missed"]),
  result: z.enum(["running", "ok", "failed", "skipped", "missed"]),
  output: z.string(),
}).meta({ id: "ScheduleRun" });
export type ScheduleRun = z.infer<typeof ScheduleRun>;

/** When a cron expression runs, in words and times. */
export const SchedulePreview = z.object({
  /** "every day at 04:00". */
  description: z.string(),
  /** The next three runs (RFC 3339 with the panel's time zone offset), empty when disabled. */
  next_runs: z.array(z.string()),
  time_zone: z.string(),
});
export type SchedulePreview = z.infer<typeof SchedulePreview>;

/** GET /api/schedules. */
export const Schedule = ScheduleInput.extend({
  id: z.number(),
  ...SchedulePreview.shape,
  last_runs: z.array(ScheduleRun),
}).meta({ id: "Schedule" });
export type Schedule = z.infer<typeof Schedule>;

/** A schedule as created or changed: run_missed and a task's delay may be left out (false, 0). */
const ScheduleBody = ScheduleInput.extend({
  tasks: z.array(ScheduleTask.extend({ delay_s: z.number().optional() })),
  run_missed: z.boolean().optional(),
});

export const scheduleRoutes = {
  "GET /api/schedules": {
    summary: "The schedules, with their next and last runs",
    role: "viewer",
    answer: z.array(Schedule),
  },
  "GET /api/schedules/preview": {
    summary: "When a cron expression (?cron=) runs",
    role: "viewer",
    query: z.object({ cron: z.string().optional() }),
    answer: SchedulePreview,
  },
  "POST /api/schedules": {
    summary: "Add a schedule",
    role: "operator",
    body: ScheduleBody,
    answer: Schedule,
    status: [201],
  },
  "GET /api/schedules/:id": { summary: "A schedule", role: "viewer", answer: Schedule },
  "POST /api/schedules/:id/update": {
    summary: "Change a schedule",
    role: "operator",
    body: ScheduleBody,
    answer: Schedule,
  },
  "POST /api/schedules/:id/run": {
    summary: "Run a schedule now",
    role: "operator",
    answer: ScheduleRun,
    status: [202],
  },
  "POST /api/schedules/:id/delete": { summary: "Delete a schedule", role: "operator", answer: z.null() },
} satisfies Routes;
