// Backups and schedules: the API's types and the rules both sides check (the forms run the same
// validation the server does).

import { unsafeTextError } from "./validation.ts";
import type { Backup, BackupSettings } from "./contract/backups.ts";

export type { Backup, BackupSettings, RestoreRequest, RetentionRule } from "./contract/backups.ts";
export type {
  Schedule,
  ScheduleInput,
  SchedulePreview,
  ScheduleRun,
  ScheduleTask,
} from "./contract/schedules.ts";

/** Why a backup was made. The "before-*" ones are taken automatically before something destructive. */
export const BACKUP_REASONS = [
  "manual",
  "schedule",
  "before-update",
  "before-restore",
  "before-mod-pack",
  "before-mods-delete",
  "before-upload",
  "before-server-delete",
] as const;
export type BackupReason = typeof BACKUP_REASONS[number];

export const BACKUP_REASON_LABELS: Record<BackupReason, string> = {
  manual: "Manual",
  schedule: "Schedule",
  "before-update": "Before game update",
  "before-restore": "Before restore",
  "before-mod-pack": "Before loading a mod pack",
  "before-mods-delete": "Before deleting all mods",
  "before-upload": "Before a save upload",
  "before-server-delete": "Before deleting a server",
};

export const BACKUP_MSG = {
  /** A download refused to an operator or viewer (server-settings.json holds passwords and tokens in clear). */
  downloadNeedsAdmin:
    "Only admins can download a backup that holds the server settings: they include the game password and the factorio.com login.",
} as const;

/** True when a backup holds server-settings.json (factorio.com username, password and token, the game password). */
export function holdsSecrets(b: Pick<Backup, "includes">): boolean {
  return b.includes.includes("settings");
}

/** What a backup may hold besides the save. */
export const BACKUP_INCLUDES = ["mods", "mod-list", "settings", "players"] as const;
/** The refusal of an `include` that is not a list of BACKUP_INCLUDES. */
export const INCLUDE_INVALID = `include may hold ${BACKUP_INCLUDES.join(", ")}.`;
export type BackupInclude = typeof BACKUP_INCLUDES[number];

export const BACKUP_INCLUDE_LABELS: Record<BackupInclude, string> = {
  mods: "Mods folder (all mod zips, mod-list.json, mod-settings.dat)",
  "mod-list": "mod-list.json and mod-settings.dat",
  settings: "Server settings",
  players: "Admin, white and ban lists",
};

/** What restoring a part of a backup replaces on the server, for the restore dialog's summary. */
export const RESTORE_REPLACES: Record<BackupInclude, string> = {
  mods: "the whole mods folder (every mod, mod-list.json, mod-settings.dat)",
  "mod-list": "mod-list.json and mod-settings.dat",
  settings: "the server settings (server-settings.json)",
  players: "the admin, white and ban lists",
};

/** "a", "a and b", "a, b and c". */
export function listInWords(items: string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * What a restore changes, in one or two sentences: the restore dialog says it before the button. `as`:
 * the new save's name, or null when restoring over the backup's save; `files`: the parts asked for.
 */
export function restoreSummary(
  b: Pick<Backup, "save" | "includes">,
  as: string | null,
  files: boolean,
): string {
  const replaced = [
    ...(as === null ? [b.save] : []),
    ...(files ? b.includes.map((i) => RESTORE_REPLACES[i]) : []),
  ];
  if (replaced.length === 0) return `Writes the new save ${as}. Nothing else changes.`;
  const start = as === null ? "Replaces" : `Writes the new save ${as} and replaces`;
  return `${start} ${listInWords(replaced)}. ${
    replaced.length === 1 ? "It is" : "They are"
  } backed up first.`;
}

/** The manifest.json at the top of every backup zip. */
export interface BackupManifest {
  format: "factorio-panel-backup";
  version: 1;
  id: string;
  created: string;
  reason: BackupReason;
  save: string;
  game_version: string;
  mods: { name: string; version: string }[];
  includes: BackupInclude[];
  /** Every other entry of the zip with its size and SHA-256. */
  files: { path: string; size: number; sha256: string }[];
}

export const DEFAULT_BACKUP_SETTINGS: BackupSettings = {
  include: [],
  retention: { keep_last: 20, keep_days: null },
  by_reason: {},
  min_free_mb: 1024,
};

// ---- Schedules ----

export const SCHEDULE_CONDITIONS = ["always", "running", "players-online", "empty"] as const;
export type ScheduleCondition = typeof SCHEDULE_CONDITIONS[number];

export const SCHEDULE_CONDITION_LABELS: Record<ScheduleCondition, string> = {
  always: "Always",
  running: "Only while the server runs",
  "players-online": "Only when players are online",
  empty: "Only when nobody is online",
};

export const TASK_TYPES = [
  "warn",
  "save",
  "backup",
  "restart",
  "stop",
  "start",
  "update-mods",
  "command",
] as const;
export type TaskType = typeof TASK_TYPES[number];

export const TASK_LABELS: Record<TaskType, string> = {
  warn: "Warn players",
  save: "Save",
  backup: "Back up",
  restart: "Restart",
  stop: "Stop",
  start: "Start",
  "update-mods": "Update mods",
  command: "Console command",
};

export const WARN_MARKS_S = [1800, 900, 600, 300, 120, 60, 30, 10];
export const MAX_TASKS = 20;
export const MAX_DELAY_S = 24 * 3600;

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
}

/** Checks one task; the first problem in words a person understands, or null. */
export function taskProblem(t: unknown, index: number): string | null {
  const n = `Task ${index + 1}`;
  if (typeof t !== "object" || t === null) return `${n} must be an object.`;
  const task = t as Record<string, unknown>;
  if (!TASK_TYPES.includes(task.type as TaskType)) {
    return `${n}: the type must be one of ${TASK_TYPES.join(", ")}.`;
  }
  if (task.delay_s !== undefined && !isInt(task.delay_s, 0, MAX_DELAY_S)) {
    return `${n}: the delay must be a whole number of seconds from 0 to ${MAX_DELAY_S}.`;
  }
  if (task.continue_on_failure !== undefined && typeof task.continue_on_failure !== "boolean") {
    return `${n}: "continue on failure" must be true or false.`;
  }
  if (task.type === "warn" || task.type === "command") {
    if (typeof task.text !== "string" || task.text.trim() === "") {
      return task.type === "warn" ? `${n}: enter the chat text.` : `${n}: enter the console command.`;
    }
    if (task.text.length > 500) return `${n}: the text may be at most 500 characters.`;
    // It goes to the game's console (and the chat): a line break there would start a line of its own.
    const unsafe = unsafeTextError(task.text, `${n}: the text`);
    if (unsafe) return `${unsafe}.`;
  }
  if (task.type === "warn" && task.countdown_s !== undefined && !isInt(task.countdown_s, 0, 3600)) {
    return `${n}: the countdown must be from 0 to 3600 seconds.`;
  }
  if (task.include !== undefined) {
    if (
      !Array.isArray(task.include) || task.include.some((i) => !BACKUP_INCLUDES.includes(i as BackupInclude))
    ) {
      return `${n}: include may hold ${BACKUP_INCLUDES.join(", ")}.`;
    }
  }
  return null;
}

/** Checks a schedule's fields except the cron expression (the server parses that with its cron library). */
export function scheduleProblem(body: Record<string, unknown>): string | null {
  if (typeof body.name !== "string" || body.name.trim() === "") return "Enter a name for the schedule.";
  if (body.name.length > 100) return "The name may be at most 100 characters.";
  const unsafe = unsafeTextError(body.name, "The name");
  if (unsafe) return `${unsafe}.`;
  if (typeof body.cron !== "string" || body.cron.trim().split(/\s+/).length !== 5) {
    return "The schedule needs a cron expression with 5 fields: minute hour day-of-month month day-of-week.";
  }
  if (!SCHEDULE_CONDITIONS.includes(body.condition as ScheduleCondition)) {
    return `The condition must be one of ${SCHEDULE_CONDITIONS.join(", ")}.`;
  }
  if (typeof body.enabled !== "boolean") return "enabled must be true or false.";
  if (body.run_missed !== undefined && typeof body.run_missed !== "boolean") {
    return "run_missed must be true or false.";
  }
  if (!Array.isArray(body.tasks) || body.tasks.length === 0) return "Add at least one task.";
  if (body.tasks.length > MAX_TASKS) return `A schedule may have at most ${MAX_TASKS} tasks.`;
  for (const [i, t] of body.tasks.entries()) {
    const p = taskProblem(t, i);
    if (p) return p;
  }
  return null;
}

/** "5 minutes", "1 minute", "30 seconds". */
export function formatDuration(seconds: number): string {
  if (seconds >= 60 && seconds % 60 === 0) {
    const m = seconds / 60;
    return `${m} minute${m === 1 ? "" : "s"}`;
  }
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
