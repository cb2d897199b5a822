// The first-run import (an empty panel takes over an old panel's directory or an export archive): admin
// only, and only while the panel is fresh.

import { z } from "zod";
import type { Routes } from "./route.ts";

export const ImportStatus = z.object({
  /** True while nobody has set the panel up: only the first-start admin, still with its generated password. */
  available: z.boolean(),
});
export type ImportStatus = z.infer<typeof ImportStatus>;

export const ImportResult = z.object({
  /** What was (or, for a preview, would be) imported, one line each. */
  lines: z.array(z.string()),
  /** New passwords of imported users who came without one: shown once. */
  passwords: z.array(z.object({ username: z.string(), password: z.string() })),
  /** The signed-in first-start admin now has the imported password (this session stays signed in). */
  admin_password_replaced: z.boolean(),
  /** The new server a server's archive (--export-server) became. */
  server: z.number().optional(),
}).meta({ id: "ImportResult" });
export type ImportResult = z.infer<typeof ImportResult>;

const OldPanel = z.object({
  /** The old panel's folder (the one holding its conf.json). */
  dir: z.string(),
});

export const transferRoutes = {
  "GET /api/import/status": {
    summary: "Whether the first-run import is offered",
    role: "admin",
    answer: ImportStatus,
  },
  "POST /api/import/old-panel/preview": {
    summary: "What importing an old panel's folder would bring",
    role: "admin",
    interactive: true,
    body: OldPanel,
    answer: ImportResult,
  },
  "POST /api/import/old-panel": {
    summary: "Import an old panel's folder",
    role: "admin",
    interactive: true,
    body: OldPanel,
    answer: ImportResult,
  },
  "POST /api/import/archive": {
    summary:
      "Import an export archive (.zip): a whole panel's into a fresh panel, one server's as a new server",
    role: "admin",
    interactive: true,
    upload: "archive",
    answer: ImportResult,
  },
  "POST /api/servers/import": {
    summary: "Add a server from one server's archive (--export-server): a new server, nothing replaced",
    // Unlike a panel import (which replaces the users), an admin's script may move a server.
    role: "admin",
    upload: "archive",
    answer: ImportResult,
  },
} satisfies Routes;
