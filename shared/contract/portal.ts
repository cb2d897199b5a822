// The mod portal: signing in to it, its mods, and installing from it (with dependencies, or a save's mods).

import { z } from "zod";
import type { Routes } from "./route.ts";
import { MSG, PANEL_MSG } from "../messages.ts";
import { Mod, ModList, ModUpdateRequest } from "./mods.ts";

/** An entry of GET /api/mods/portal/list. */
export const PortalListEntry = z.object({ name: z.string(), title: z.string() });
export type PortalListEntry = z.infer<typeof PortalListEntry>;

export const PortalList = z.object({ results: z.array(PortalListEntry) });
export type PortalList = z.infer<typeof PortalList>;

/** A release of GET /api/mods/portal/info/{name}; versions four-part as in the old API. */
export const PortalRelease = z.object({
  version: z.string(),
  download_url: z.string(),
  file_name: z.string(),
  released_at: z.string(),
  sha1: z.string(),
  info_json: z.object({ factorio_version: z.string(), dependencies: z.array(z.string()).optional() }),
  /** Fits the game this panel runs. */
  compatibility: z.boolean(),
});
export type PortalRelease = z.infer<typeof PortalRelease>;

export const PortalModInfo = z.object({
  name: z.string(),
  title: z.string(),
  owner: z.string(),
  summary: z.string(),
  downloads_count: z.number(),
  releases: z.array(PortalRelease),
});
export type PortalModInfo = z.infer<typeof PortalModInfo>;

/** A dependency the panel could not install along with a mod, and why. */
export const MissingDependency = z.object({ name: z.string(), reason: z.string() });
export type MissingDependency = z.infer<typeof MissingDependency>;

/** POST /api/mods/portal/install: the mods afterwards and what was installed along with the mod. */
export const InstallResult = ModList.extend({
  dependencies_added: z.array(z.string()),
  dependencies_missing: z.array(MissingDependency),
}).meta({ id: "InstallResult" });
export type InstallResult = z.infer<typeof InstallResult>;

/** A mod of a save, as POST /api/mods/portal/install/multiple takes it (SaveMod's fields; crc ignored). */
export const WantedMod = z.looseObject({
  name: z.string(),
  version: z.string(),
  built_in: z.boolean().optional(),
});
export type WantedMod = z.infer<typeof WantedMod>;

/**
 * POST /api/mods/portal/install/multiple. A failure (424) answers only its message as a JSON string (what
 * the old panel's UI can show), unless asked with ?detail=1: then this, with `message`.
 */
export const InstallMultipleResult = z.object({
  mods: z.array(Mod),
  /** Downloaded from the portal. */
  installed: z.array(z.string()),
  /** Already there in the wanted version. */
  present: z.array(z.string()),
  /** Built-in mods switched on (those of the save) or off (the game's others). */
  toggled: z.array(z.object({ name: z.string(), enabled: z.boolean() })),
  failed: z.array(z.object({ name: z.string(), version: z.string(), reason: z.string() })),
  /** On a 424: which mods could not be installed, and why, in words. */
  message: z.string().optional(),
}).meta({ id: "InstallMultipleResult" });
export type InstallMultipleResult = z.infer<typeof InstallMultipleResult>;

/** GET /api/mods/portal/progress: downloads in flight. */
export const DownloadProgress = z.object({
  name: z.string(),
  version: z.string(),
  received: z.number(),
  /** 0 when the portal did not say. */
  total: z.number(),
});
export type DownloadProgress = z.infer<typeof DownloadProgress>;

/** The factorio.com account: a password (the panel asks for a token with it), or a token from factorio.com/profile. */
export const PortalLogin = z.looseObject({
  username: z.string({ error: MSG.usernameRequired }),
  password: z.string({ error: MSG.passwordRequired }).optional(),
  token: z.string({ error: PANEL_MSG.tokenRequired }).optional(),
});

/** A save's mods; ?detail=1 makes a 424 answer the whole result instead of only its message. */
export const installMultiple = {
  query: z.object({ detail: z.literal("1").optional() }),
  body: z.array(WantedMod),
  answer: InstallMultipleResult,
  errors: { 424: z.union([z.string(), InstallMultipleResult]) },
};

export const portalRoutes = {
  "POST /api/mods/portal/login": {
    summary: "Sign in to the mod portal (factorio.com) with a password or a token",
    role: "operator",
    body: PortalLogin,
    answer: z.null(),
  },
  "GET /api/mods/portal/loginstatus": {
    summary: "Whether the panel is signed in to the mod portal",
    role: "viewer",
    answer: z.boolean(),
  },
  "GET /api/mods/portal/logout": {
    summary: "Forget the mod portal's token",
    role: "operator",
    changesState: true,
    answer: z.literal(false),
  },
  "GET /api/mods/portal/list": {
    summary: "Every mod of the portal, by name and title",
    role: "viewer",
    answer: PortalList,
  },
  "GET /api/mods/portal/info/:name": {
    summary: "A mod of the portal and its releases",
    role: "viewer",
    answer: PortalModInfo,
  },
  "GET /api/mods/portal/progress": {
    summary: "Downloads from the portal in flight",
    role: "viewer",
    answer: z.array(DownloadProgress),
  },
  "POST /api/mods/portal/install": {
    summary: "Install a release of the portal, with the mods it needs",
    role: "operator",
    requiresStopped: "a mod install",
    body: ModUpdateRequest,
    answer: InstallResult,
  },
  "POST /api/mods/portal/install/multiple": {
    summary: "Install a save's mods (424 when some could not be)",
    role: "operator",
    requiresStopped: "a mod install",
    ...installMultiple,
  },
} satisfies Routes;
