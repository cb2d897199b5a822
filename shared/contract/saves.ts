// Saves: list, create (the game's --create), upload, download, delete, and the header (mods) of a save.

import { z } from "zod";
import { file, Message, type Routes } from "./route.ts";

/** An entry of GET /api/saves/list. `last_mod` is an RFC 3339 time; the UI shows it in UTC. */
export const Save = z.object({
  name: z.string(),
  last_mod: z.string(),
  size: z.number(),
  /**
   * The game version that wrote the save, from its header ("2.0.28.0", as SaveHeader.factorio_version);
   * null for "Load Latest" and for a file whose header cannot be read. Added to the old API's entry; this
   * panel always sends it (optional only for entries made elsewhere, such as tests of other pages).
   */
  factorio_version: z.string().nullable().optional(),
}).meta({ id: "Save" });
export type Save = z.infer<typeof Save>;

/** A mod as a save's header lists it. `built_in` marks mods that ship with the game. */
export const SaveMod = z.object({
  name: z.string(),
  /** Four-part version, as the old API printed it ("1.1.6.0"). */
  version: z.string(),
  crc: z.number().nullable(),
  built_in: z.boolean(),
});
export type SaveMod = z.infer<typeof SaveMod>;

/** POST /api/saves/mods: what the save's level-init.dat / level.dat header says. */
export const SaveHeader = z.object({
  factorio_version: z.string(),
  campaign: z.string(),
  name: z.string(),
  base_mod: z.string(),
  difficulty: z.number(),
  finished: z.boolean(),
  player_won: z.boolean(),
  next_level: z.string(),
  can_continue: z.boolean(),
  finished_but_continuing: z.boolean(),
  saving_replay: z.boolean(),
  allow_non_admin_debug_options: z.boolean(),
  loaded_from: z.string(),
  loaded_from_build: z.number(),
  allowed_commands: z.number(),
  mods: z.array(SaveMod),
}).meta({ id: "SaveHeader" });
export type SaveHeader = z.infer<typeof SaveHeader>;

export const saveRoutes = {
  "GET /api/saves/list": {
    summary: 'The saves, with "Load Latest" first',
    role: "viewer",
    answer: z.array(Save),
  },
  "GET /api/saves/create/:name": {
    summary: "Create a new map as a save with the game's defaults",
    role: "operator",
    changesState: true,
    requiresStopped: "creating a save",
    answer: Message,
  },
  "POST /api/saves/upload": {
    summary: "Upload a save (.zip); a save of the same name is backed up, then replaced",
    role: "operator",
    upload: "savefile",
    answer: Message,
  },
  "GET /api/saves/dl/:name": {
    summary: "Download a save (ranges supported)",
    role: "viewer",
    answer: file("application/zip"),
  },
  "GET /api/saves/rm/:name": {
    summary: "Delete a save",
    role: "operator",
    changesState: true,
    answer: Message,
  },
  "POST /api/saves/mods": {
    summary: "A save's header: its game version and mods",
    role: "operator",
    // The old server matched JSON keys case-insensitively; clients send saveFile.
    body: z.looseObject({ saveFile: z.string({ error: "Save name is required" }) }),
    answer: SaveHeader,
  },
} satisfies Routes;
