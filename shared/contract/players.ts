// The game's admin, white and ban lists, who is online, and kicking.

import { z } from "zod";
import { banReasonError, playerNameError } from "../players.ts";
import { PANEL_MSG } from "../messages.ts";
import { Message, type Routes } from "./route.ts";

/** An entry of server-banlist.json. The game may also store an address; the panel keeps it untouched. */
export const BanEntry = z.object({ username: z.string(), reason: z.string() });
export type BanEntry = z.infer<typeof BanEntry>;

/** GET /api/players and the answer of every list change. */
export const PlayerLists = z.object({
  admins: z.array(z.string()),
  whitelist: z.array(z.string()),
  /** Passed to the game at start as --use-server-whitelist. */
  use_whitelist: z.boolean(),
  bans: z.array(BanEntry),
  /** True while the game runs: changes go to it over RCON at once as well as to the files. */
  live: z.boolean(),
}).meta({ id: "PlayerLists" });
export type PlayerLists = z.infer<typeof PlayerLists>;

/** GET /api/players/online. */
export const OnlinePlayers = z.object({ players: z.array(z.string()) });
export type OnlinePlayers = z.infer<typeof OnlinePlayers>;

const Player = z.object({ username: z.string({ error: (iss) => playerNameError(iss.input) }) });
const op = { role: "operator", answer: PlayerLists } as const;

export const playerRoutes = {
  "GET /api/players": { summary: "The admin, white and ban lists", role: "viewer", answer: PlayerLists },
  "POST /api/players/admins/add": { summary: "Add a player to the admin list", ...op, body: Player },
  "POST /api/players/admins/remove": { summary: "Remove a player from the admin list", ...op, body: Player },
  "POST /api/players/whitelist/add": { summary: "Add a player to the whitelist", ...op, body: Player },
  "POST /api/players/whitelist/remove": {
    summary: "Remove a player from the whitelist",
    ...op,
    body: Player,
  },
  "POST /api/players/bans/add": {
    summary: "Ban a player",
    ...op,
    body: Player.extend({ reason: z.string({ error: (iss) => banReasonError(iss.input) }).optional() }),
  },
  "POST /api/players/bans/remove": { summary: "Lift a player's ban", ...op, body: Player },
  "POST /api/players/whitelist/use": {
    summary: "Whether the game uses the whitelist (from its next start)",
    ...op,
    body: z.object({ enabled: z.boolean({ error: PANEL_MSG.useWhitelistInvalid }) }),
  },
  "GET /api/players/online": { summary: "Who is online", role: "viewer", answer: OnlinePlayers },
  "POST /api/players/kick": {
    summary: "Kick a player",
    role: "operator",
    body: z.object({ username: z.string(), reason: z.string().optional() }),
    answer: Message,
  },
} satisfies Routes;
