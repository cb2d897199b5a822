// Game versions from factorio.com: what is offered and installed, install (with cancel), activate, delete,
// the update check, and the managed update. Installs and updates answer 202 once under way; their progress
// goes to the "factorio_versions" /ws room.

import { z } from "zod";
import { Message, type Routes } from "./route.ts";
import { CHANNELS } from "../factorio-versions.ts";

const Channel = z.enum(CHANNELS);

export const InstalledVersion = z.object({
  version: z.string(),
  active: z.boolean(),
  /** false for a game installed by hand in --factorio-dir: the panel uses it but never deletes it. */
  managed: z.boolean(),
});
export type InstalledVersion = z.infer<typeof InstalledVersion>;

export const AvailableVersion = z.object({ version: z.string(), channel: Channel });
export type AvailableVersion = z.infer<typeof AvailableVersion>;

export const InstallPhase = z.enum([
  "checking",
  "downloading",
  "unpacking",
  "testing",
  "done",
  "failed",
  "cancelled",
]);
export type InstallPhase = z.infer<typeof InstallPhase>;

/** One install, as it goes. `message` says what happened in words (set on done, failed, cancelled). */
export const InstallProgress = z.object({
  version: z.string(),
  phase: InstallPhase,
  received: z.number(),
  total: z.number().nullable(),
  bytesPerSecond: z.number(),
  etaSeconds: z.number().nullable(),
  message: z.string(),
});
export type InstallProgress = z.infer<typeof InstallProgress>;

export const UpdatePhase = z.enum([
  "warning",
  "stopping",
  "installing",
  "starting",
  "rolling-back",
  "done",
  "rolled-back",
  "cancelled",
  "failed",
]);
export type UpdatePhase = z.infer<typeof UpdatePhase>;

/** An update of a running server (warn, save & stop, install, start the same save; roll back on failure). */
export const UpdateProgress = z.object({
  from: z.string(),
  to: z.string(),
  phase: UpdatePhase,
  /** Seconds until the server stops, while warning. */
  secondsLeft: z.number().nullable(),
  message: z.string(),
});
export type UpdateProgress = z.infer<typeof UpdateProgress>;

export const UpdateInfo = z.object({
  channel: Channel,
  current: z.string(),
  latest: z.string(),
  /** ISO time of the check. */
  checkedAt: z.string(),
}).meta({ id: "UpdateInfo" });
export type UpdateInfo = z.infer<typeof UpdateInfo>;

/** GET /api/factorio/versions */
export const VersionsAnswer = z.object({
  installed: z.array(InstalledVersion),
  available: z.array(AvailableVersion),
  /** The running or last install; null when none has run since the panel started. */
  install: InstallProgress.nullable(),
  update: UpdateProgress.nullable(),
  /** Set when a newer version of the active channel is out. */
  updateAvailable: UpdateInfo.nullable(),
  /** Whether a game (managed or by hand) is there to start. */
  gameFound: z.boolean(),
  /** The channel updates follow. */
  channel: Channel,
  /** Set when factorio.com could not be reached for the available list. */
  availableError: z.string().nullable(),
});
export type VersionsAnswer = z.infer<typeof VersionsAnswer>;

const Version = z.object({ version: z.string() });

export const versionRoutes = {
  "GET /api/factorio/versions": {
    summary: "Installed and available game versions, and the install or update under way",
    role: "viewer",
    answer: VersionsAnswer,
  },
  "POST /api/factorio/install": {
    summary: "Install a game version from factorio.com (202: under way)",
    role: "operator",
    requiresStopped: "a game install",
    body: Version,
    answer: Message,
    status: [202],
  },
  "POST /api/factorio/install/cancel": {
    summary: "Cancel the install under way",
    role: "operator",
    answer: Message,
  },
  "POST /api/factorio/activate": {
    summary: "Make an installed version the one the game runs",
    role: "operator",
    requiresStopped: "a game version switch",
    body: Version,
    answer: Message,
  },
  "DELETE /api/factorio/versions/:version": {
    summary: "Delete an installed version",
    role: "operator",
    requiresStopped: "a game version delete",
    answer: Message,
  },
  "POST /api/factorio/check": {
    summary: "Ask factorio.com now whether a newer version is out (null: none)",
    role: "operator",
    answer: UpdateInfo.nullable(),
  },
  "POST /api/factorio/update": {
    summary:
      "Update the game (warn, save & stop, install, start again; roll back on failure; 202: under way)",
    role: "operator",
    body: z.object({ version: z.string().optional() }),
    answer: Message,
    status: [202],
  },
  "POST /api/factorio/update/cancel": {
    summary: "Cancel the update under way",
    role: "operator",
    answer: Message,
  },
} satisfies Routes;
