// Several Factorio servers from one panel: the servers a caller may see, adding one (empty, a Factorio
// folder used where it is, a copy of another server, or a backup), renaming, moving its port, deleting.
//
// Every per-server route /api/R (SERVER_AREAS in index.ts) is also served as /api/servers/{id}/R with the
// same body and answer; /api/R itself addresses server 1, so the old panel's UI and today's scripts keep
// working unchanged.

import { z } from "zod";
import { Message, type Routes } from "./route.ts";
import { Role } from "./auth.ts";
import { ServerState } from "./server.ts";
import { SERVERS_MSG } from "../servers.ts";

export { FIRST_SERVER } from "../servers.ts";

export const ServerSummary = z.object({
  id: z.number(),
  name: z.string(),
  status: ServerState,
  /** The game's UDP port. */
  port: z.number(),
  rcon_port: z.number(),
  /** The game version it runs (its active version), "" when no game is found. */
  version: z.string(),
  players_online: z.number(),
  /** ISO time the current run started (uptime), null while stopped. */
  started_at: z.string().nullable(),
  /** The last thing that happened to it: a start, a stop, a crash, a backup ... (null: nothing yet). */
  last_event: z.object({ at: z.string(), text: z.string() }).nullable(),
  /** The caller's role on this server (an admin: admin). */
  role: Role,
  /** Its Factorio directory (admins only; "" for others). */
  dir: z.string(),
}).meta({ id: "ServerSummary" });
export type ServerSummary = z.infer<typeof ServerSummary>;

/** Where a new server's files come from; absent: an empty server on the active game version. */
export const ServerSource = z.union([
  z.object({ folder: z.string({ error: SERVERS_MSG.folderRequired }) }).strict(),
  z.object({ server: z.number({ error: SERVERS_MSG.sourceServerRequired }) }).strict(),
  // A backup's id is text (the backups list's `id`), and each server has its own backups: `server` says
  // whose (absent: whichever server has it).
  z.object({
    backup: z.string({ error: SERVERS_MSG.backupRequired }),
    server: z.number({ error: SERVERS_MSG.sourceServerRequired }).optional(),
  }).strict(),
], { error: SERVERS_MSG.sourceInvalid });
export type ServerSource = z.infer<typeof ServerSource>;

export const NewServer = z.object({
  name: z.string({ error: SERVERS_MSG.nameRequired }),
  /** The game's UDP port; absent: the next free one from 34197. */
  port: z.number({ error: SERVERS_MSG.portInvalid }).optional(),
  /** The RCON port; absent: the next free one from 27015. */
  rcon_port: z.number({ error: SERVERS_MSG.portInvalid }).optional(),
  /** An installed game version; absent: the first server's active version. */
  version: z.string().optional(),
  from: ServerSource.optional(),
});
export type NewServer = z.infer<typeof NewServer>;

export const ServerChange = z.object({
  name: z.string({ error: SERVERS_MSG.nameRequired }).optional(),
  port: z.number({ error: SERVERS_MSG.portInvalid }).optional(),
  rcon_port: z.number({ error: SERVERS_MSG.portInvalid }).optional(),
});
export type ServerChange = z.infer<typeof ServerChange>;

/**
 * Deleting a server: a backup of it is made first. To delete without one, `backup: false` and `confirm`
 * the server's name, typed (the user declines in words).
 */
export const ServerDeletion = z.object({
  backup: z.boolean().optional(),
  confirm: z.string().optional(),
});
export type ServerDeletion = z.infer<typeof ServerDeletion>;

export const serversRoutes = {
  "GET /api/servers": {
    summary: "The servers the caller has a role on, with their state",
    role: "viewer",
    answer: z.array(ServerSummary),
  },
  "POST /api/servers": {
    summary: "Add a server (empty, from a Factorio folder, a copy of a server, or a backup)",
    role: "admin",
    body: NewServer,
    answer: z.object({ id: z.number() }),
    status: [201],
  },
  "PATCH /api/servers/:id": {
    summary: "Rename a server or move its ports (ports only while it is stopped)",
    role: "admin",
    body: ServerChange,
    answer: Message,
  },
  "DELETE /api/servers/:id": {
    summary: "Stop and delete a server, after a backup unless declined by typing its name",
    role: "admin",
    body: ServerDeletion,
    answer: Message,
  },
} satisfies Routes;
