// Mod packs (spec section 7 "Mod packs"): named sets of mods kept beside the installed ones. Changes touch
// only the pack's own folder, except loading one, which replaces the installed mods.

import { z } from "zod";
import { MSG } from "../messages.ts";
import { file, type Routes } from "./route.ts";
import { DeleteAllMods, Mod, ModList, ModName, ModUpdate, ModUpdateRequest } from "./mods.ts";
import { installMultiple, InstallResult } from "./portal.ts";

export const ModPack = z.object({ name: z.string(), mods: ModList }).meta({ id: "ModPack" });
export type ModPack = z.infer<typeof ModPack>;

export const modPackRoutes = {
  "GET /api/mods/packs/list": {
    summary: "The mod packs and their mods",
    role: "viewer",
    answer: z.array(ModPack),
  },
  "POST /api/mods/packs/create": {
    summary: "Make a mod pack of the installed mods; answers the packs",
    role: "operator",
    body: z.looseObject({ name: z.string({ error: MSG.modPackNameRequired }) }),
    answer: z.array(ModPack),
  },
  "POST /api/mods/packs/:pack/delete": {
    summary: "Delete a mod pack; answers its name",
    role: "operator",
    answer: z.string(),
  },
  "GET /api/mods/packs/:pack/download": {
    summary: "A mod pack's mods in one zip",
    role: "viewer",
    answer: file("application/zip"),
  },
  "POST /api/mods/packs/:pack/load": {
    summary: "Replace the installed mods by a pack's (backed up first); answers the installed mods",
    role: "operator",
    requiresStopped: "loading a mod pack",
    answer: ModList,
  },
  "GET /api/mods/packs/:pack/list": { summary: "A mod pack's mods", role: "viewer", answer: ModList },
  "GET /api/mods/packs/:pack/updates": {
    summary: "A pack's mods with a newer release that fits the game",
    role: "viewer",
    answer: z.array(ModUpdate),
  },
  "POST /api/mods/packs/:pack/mod/toggle": {
    summary: "Switch a pack's mod on or off; answers whether it is now on",
    role: "operator",
    body: ModName,
    answer: z.boolean(),
  },
  "POST /api/mods/packs/:pack/mod/update": {
    summary: "Update a pack's mod to a release of the mod portal",
    role: "operator",
    body: ModUpdateRequest,
    answer: Mod,
  },
  "POST /api/mods/packs/:pack/mod/delete": {
    summary: "Delete a mod of a pack",
    role: "operator",
    body: ModName,
    answer: z.literal(true),
  },
  "POST /api/mods/packs/:pack/mod/delete/all": {
    summary: "Delete every mod of a pack",
    role: "operator",
    body: DeleteAllMods,
    answer: z.literal(true),
  },
  "POST /api/mods/packs/:pack/mod/upload": {
    summary: "Upload a mod (.zip) into a pack; answers the pack's mods",
    role: "operator",
    upload: "mod_file",
    answer: ModList,
  },
  "POST /api/mods/packs/:pack/portal/install": {
    summary: "Install a release of the portal into a mod pack, with the mods it needs",
    role: "operator",
    body: ModUpdateRequest,
    answer: InstallResult,
  },
  "POST /api/mods/packs/:pack/portal/install/multiple": {
    summary: "Install a save's mods into a mod pack (424 when some could not be)",
    role: "operator",
    ...installMultiple,
  },
} satisfies Routes;
