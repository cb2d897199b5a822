// Backups: list, make, restore, lock, download, delete, and their settings (what "Back up now" includes,
// how many are kept).

import { z } from "zod";
import { file, type Routes } from "./route.ts";
import { BACKUP_INCLUDES, BACKUP_REASONS, INCLUDE_INVALID } from "../backups.ts";

export const BackupReason = z.enum(BACKUP_REASONS);
export const BackupInclude = z.enum(BACKUP_INCLUDES);

/** GET /api/backups: one row, newest first. */
export const Backup = z.object({
  id: z.string(),
  /** RFC 3339, UTC. */
  created: z.string(),
  reason: BackupReason,
  /** The save's file name ("world.zip"). */
  save: z.string(),
  /** Size of the backup file in bytes. */
  size: z.number(),
  /** SHA-256 of the backup file (hex). */
  sha256: z.string(),
  locked: z.boolean(),
  /** The game version that wrote the save, as its header says ("2.0.72"). */
  game_version: z.string(),
  includes: z.array(BackupInclude),
  /** Mods the save uses (from its header). */
  mods: z.array(z.object({ name: z.string(), version: z.string() })),
}).meta({ id: "Backup" });
export type Backup = z.infer<typeof Backup>;

export const RetentionRule = z.object({
  /** Keep the newest N of this reason (null: no count limit). */
  keep_last: z.number().nullable(),
  /** Keep those younger than D days (null: no age limit). */
  keep_days: z.number().nullable(),
});
export type RetentionRule = z.infer<typeof RetentionRule>;

/** GET/POST /api/backups/settings. */
export const BackupSettings = z.object({
  /** The checkboxes of "Back up now", remembered. */
  include: z.array(BackupInclude),
  /** Applied to each reason separately, unless `by_reason` has a rule for it. */
  retention: RetentionRule,
  by_reason: z.partialRecord(BackupReason, RetentionRule),
  /** Below this much free space (MiB) in the backups folder, the oldest unlocked backups go. 0: off. */
  min_free_mb: z.number(),
}).meta({ id: "BackupSettings" });
export type BackupSettings = z.infer<typeof BackupSettings>;

/** POST /api/backups/:id/restore: into a new save (`as`), or over the save it was taken from (`replace`). */
export const RestoreRequest = z.object({
  /** A new save name; or */
  as: z.string().optional(),
  /** over the save the backup was taken from. */
  replace: z.boolean().optional(),
  /** Stop the running server, restore, then start the restored save. */
  restart: z.boolean().optional(),
  /** Also restore the mods, mod list, settings and player lists the backup holds (default false). */
  files: z.boolean().optional(),
});
export type RestoreRequest = z.infer<typeof RestoreRequest>;

export const backupRoutes = {
  "GET /api/backups": { summary: "The backups, newest first", role: "viewer", answer: z.array(Backup) },
  "POST /api/backups": {
    summary: "Back up a save now (the running one unless named), with what `include` asks (remembered)",
    role: "operator",
    body: z.object({
      include: z.array(z.enum(BACKUP_INCLUDES, { error: INCLUDE_INVALID }), { error: INCLUDE_INVALID })
        .optional(),
      save: z.string().optional(),
    }),
    answer: Backup,
    status: [201],
  },
  "GET /api/backups/settings": {
    summary: "What backups include and how many are kept",
    role: "viewer",
    answer: BackupSettings,
  },
  "POST /api/backups/settings": {
    summary: "Change what backups include and how many are kept (any of the fields)",
    role: "operator",
    body: BackupSettings.partial(),
    answer: BackupSettings,
  },
  "POST /api/backups/:id/restore": {
    summary: "Restore a backup (what it replaces is backed up first)",
    role: "operator",
    body: RestoreRequest,
    answer: z.object({ message: z.string(), save: z.string() }),
  },
  "POST /api/backups/:id/lock": {
    summary: "Lock a backup (never deleted by retention) or unlock it",
    role: "operator",
    body: z.object({ locked: z.boolean() }),
    answer: Backup,
  },
  "GET /api/backups/:id/download": {
    summary: "Download a backup (one holding the server settings: admins only)",
    role: "viewer",
    answer: file("application/zip"),
  },
  "POST /api/backups/:id/delete": { summary: "Delete a backup", role: "operator", answer: z.null() },
} satisfies Routes;
