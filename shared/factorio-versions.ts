// Game versions the panel installs from factorio.com: the API's shapes and the live messages of the
// "factorio_versions" room, for both sides.

import type { InstallProgress, UpdateInfo, UpdatePhase, UpdateProgress } from "./contract/versions.ts";

export type {
  AvailableVersion,
  InstalledVersion,
  InstallPhase,
  InstallProgress,
  UpdateInfo,
  UpdatePhase,
  UpdateProgress,
  VersionsAnswer,
} from "./contract/versions.ts";

export type Channel = "stable" | "experimental";
export const CHANNELS: readonly Channel[] = ["stable", "experimental"];

/** An exact game version as factorio.com names its downloads. */
export const EXACT_VERSION = /^\d{1,4}\.\d{1,4}\.\d{1,5}$/;

/** Phases after which an update is over. */
export const UPDATE_ENDED: readonly UpdatePhase[] = ["done", "rolled-back", "cancelled", "failed"];

/** Messages of the "factorio_versions" room (JSON in the message string). */
export type VersionsMessage =
  | { kind: "install"; install: InstallProgress }
  | { kind: "update"; update: UpdateProgress }
  /** A check found a newer version than the last one announced (the push notifier listens). */
  | { kind: "update-available"; info: UpdateInfo }
  | { kind: "changed" };
