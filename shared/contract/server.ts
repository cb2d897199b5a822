// The game server: status, version, start, save & stop, restart, kill.

import { z } from "zod";
import { MSG } from "../messages.ts";
import { Message, type Routes } from "./route.ts";

/** The game process as the panel sees it. "running" only once the game reports it is hosting. */
export const ServerState = z.enum(["stopped", "starting", "running", "stopping"]);
export type ServerState = z.infer<typeof ServerState>;

/** How the last run of the game ended, for the UI and the notifier. */
export const ServerExit = z.object({
  /**
   * "stopped": Save & Stop; "killed": Kill; "crashed": an exit the panel did not ask for after the game was
   * hosting; "start-failed": the game ended while starting (a bad save, a taken port, a broken mod).
   */
  reason: z.enum(["stopped", "killed", "crashed", "start-failed"]),
  code: z.number().nullable(),
  signal: z.string().nullable(),
  at: z.string(),
  last_lines: z.array(z.string()),
}).meta({ id: "ServerExit" });
export type ServerExit = z.infer<typeof ServerExit>;

export const ServerStatus = z.object({
  status: ServerState,
  /** Compatibility with the old API: true while the game process is up. */
  running: z.boolean(),
  address: z.string(),
  bindip: z.string(),
  port: z.number(),
  savefile: z.string(),
  fac_version: z.string(),
  base_mod_version: z.string(),
  /** ISO time of the last status change. */
  since: z.string(),
  last_exit: ServerExit.nullable(),
  /** ISO time the current run started (uptime), null while stopped. */
  started_at: z.string().nullable(),
  /** Whether the game's executable exists where the panel looks for it. */
  factorio_found: z.boolean(),
  /** The Factorio directory, for "no game found in ..." messages. */
  factorio_dir: z.string(),
  /** Things the admin should know about the game server right now, in plain words (empty when all is well). */
  problems: z.array(z.string()),
  /**
   * What the last start asked for (its save as asked: "Load Latest" stays so), kept across panel restarts:
   * the start form offers it on every device. Null before the first start.
   */
  last_start: z.object({ bindip: z.string(), port: z.number(), savefile: z.string() }).nullable(),
}).meta({ id: "ServerStatus" });
export type ServerStatus = z.infer<typeof ServerStatus>;

export const FactorioVersionInfo = z.object({ version: z.string(), base_mod_version: z.string() });
export type FactorioVersionInfo = z.infer<typeof FactorioVersionInfo>;

/**
 * The start form (spec section 5). The port may come as its decimal text, as old clients send it. The
 * words for a field that is missing or wrong are the form's (shared/validation.ts validateStart).
 */
export const StartBody = z.object({
  bindip: z.string({ error: MSG.ipInvalid }),
  port: z.union([z.number(), z.string()], { error: MSG.portRequired }),
  savefile: z.string({ error: MSG.saveRequired }),
});

export const serverRoutes = {
  "GET /api/server/status": { summary: "The game server's status", role: "viewer", answer: ServerStatus },
  "GET /api/server/facVersion": {
    summary: "The game's version",
    role: "viewer",
    answer: FactorioVersionInfo,
  },
  "POST /api/server/start": {
    summary: "Start the game with a save (200 once it hosts, 202 while it is still starting)",
    role: "operator",
    body: StartBody,
    answer: Message,
    status: [200, 202],
  },
  "GET /api/server/stop": {
    summary: "Save & stop the game",
    role: "operator",
    changesState: true,
    answer: Message,
    status: [200, 202],
  },
  "GET /api/server/kill": {
    summary: "Kill the game without saving",
    role: "operator",
    changesState: true,
    answer: Message,
    status: [200, 202],
  },
  "POST /api/server/restart": {
    summary: "Save, stop and start the game again with the same save, address and port",
    role: "operator",
    answer: Message,
    status: [200, 202],
  },
} satisfies Routes;
