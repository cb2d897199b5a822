// The installed mods (spec section 7 "Mods"): list, switch on or off, delete, update, upload, download, pin.
// Every change of the installed mods needs the game stopped.

import { z } from "zod";
import { PANEL_MSG } from "../messages.ts";
import { file, type Routes } from "./route.ts";

/**
 * An installed mod (GET /api/mods/list and the mod tables of packs). The old API's ModsResult, plus
 * `built_in`, `error` and `other_versions`. Versions: `version` as info.json has it, `factorio_version`
 * with four parts ("1.1.0.0") as the old API printed it.
 */
export const Mod = z.object({
  name: z.string(),
  title: z.string(),
  author: z.string(),
  version: z.string(),
  file_name: z.string(),
  factorio_version: z.string(),
  dependencies: z.array(z.string()).nullable(),
  compatibility: z.boolean(),
  enabled: z.boolean(),
  /** Ships with the game in data/ (base, space-age...): can be toggled, never deleted or downloaded. */
  built_in: z.boolean(),
  /** Why the zip could not be read; such a mod is listed (by file name) only so it can be deleted. */
  error: z.string().nullable(),
  /** Other versions of the same mod also in the folder; the game loads `version`. */
  other_versions: z.array(z.string()),
  /** The admin pinned it at its installed version: no update badge, skipped by "Update all" and scheduled updates. */
  pinned: z.boolean().optional(),
}).meta({ id: "Mod" });
export type Mod = z.infer<typeof Mod>;

export const ModList = z.object({ mods: z.array(Mod) }).meta({ id: "ModList" });
export type ModList = z.infer<typeof ModList>;

/** One release of the portal for one mod. */
const release = { modName: z.string(), downloadUrl: z.string(), fileName: z.string() };

/** What POST /api/mods/update (and the pack variant) take. The old server matched keys case-insensitively. */
export const ModUpdateRequest = z.looseObject({
  modName: z.string({ error: "modName must be the name of a mod." }),
  downloadUrl: z.string({ error: PANEL_MSG.downloadUrlRefused }),
  /** Ignored: the release is the one of downloadUrl. */
  fileName: z.string().optional(),
});
export type ModUpdateRequest = z.infer<typeof ModUpdateRequest>;

/** GET /api/mods/updates: an installed mod with a newer release that fits the game. */
export const ModUpdate = z.object({
  ...release,
  current: z.string(),
  version: z.string(),
}).meta({ id: "ModUpdate" });
export type ModUpdate = z.infer<typeof ModUpdate>;

/** A body naming a mod. The old server matched JSON keys case-insensitively, and so does this one. */
export const ModName = z.looseObject({ name: z.string() });

/** Delete all's option; the old API's call had no body, which means: keep mod-settings.dat. */
export const DeleteAllMods = z.looseObject({ delete_mod_settings: z.boolean().optional() });

export const modRoutes = {
  "GET /api/mods/list": { summary: "The installed mods", role: "viewer", answer: z.array(Mod) },
  "POST /api/mods/toggle": {
    summary: "Switch a mod on or off; answers whether it is now on",
    role: "operator",
    requiresStopped: "switching a mod on or off",
    body: ModName,
    answer: z.boolean(),
  },
  "POST /api/mods/delete": {
    summary: "Delete a mod (every version of it); answers its name",
    role: "operator",
    requiresStopped: "deleting a mod",
    body: ModName,
    answer: z.string(),
  },
  "POST /api/mods/delete/all": {
    summary: "Delete every mod but the game's own (backed up first); mod-settings.dat too when asked",
    role: "operator",
    requiresStopped: "deleting all mods",
    body: DeleteAllMods,
    answer: z.null(),
  },
  "POST /api/mods/update": {
    summary: "Update a mod to a release of the mod portal",
    role: "operator",
    requiresStopped: "updating a mod",
    body: ModUpdateRequest,
    answer: Mod,
  },
  "POST /api/mods/upload": {
    summary: "Upload a mod (.zip); answers the installed mods",
    role: "operator",
    requiresStopped: "a mod upload",
    upload: "mod_file",
    answer: ModList,
  },
  "GET /api/mods/download": {
    summary: "Every installed mod in one zip",
    role: "viewer",
    answer: file("application/zip"),
  },
  "GET /api/mods/updates": {
    summary: "Installed mods with a newer release that fits the game",
    role: "viewer",
    answer: z.array(ModUpdate),
  },
  "POST /api/mods/pin": {
    summary: "Pin a mod at its version (no updates), or unpin it",
    role: "operator",
    body: z.object({ name: z.string(), pinned: z.boolean() }),
    answer: Mod,
  },
} satisfies Routes;
