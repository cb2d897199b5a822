// Game versions the panel installs from factorio.com: the API's shapes and the live messages of the
// "factorio_versions" room, for both sides.

export type Channel = "stable" | "experimental";
export const CHANNELS: readonly Channel[] = ["stable", "experimental"];

/** An exact game version as factorio.com names its downloads. */
export const EXACT_VERSION = /^\d{1,4}\.\d{1,4}\.\d{1,5}$/;

export interface InstalledVersion {
  version: string;
  active: boolean;
  /** false for a game installed by hand in --factorio-dir: the panel uses it but never deletes it. */
  managed: boolean;
}

export interface AvailableVersion {
  version: string;
  channel: Channel;
}

export type InstallPhase = "checking" | "downloading" | "unpacking" | "testing" | "done" | "failed" | "cancelled";

/** One install, as it goes. `message` says what happened in words (set on done, failed, cancelled). */
export interface InstallProgress {
  version: string;
  phase: InstallPhase;
  received: number;
  total: number | null;
  bytesPerSecond: number;
  etaSeconds: number | null;
  message: string;
}

export type UpdatePhase =
  | "warning"
  | "stopping"
  | "installing"
  | "starting"
  | "rolling-back"
  | "done"
  | "rolled-back"
  | "cancelled"
  | "failed";

/** Phases after which an update is over. */
export const UPDATE_ENDED: readonly UpdatePhase[] = ["done", "rolled-back", "cancelled", "failed"];

/** An update of a running server (warn, save & stop, install, start the same save; roll back on failure). */
export interface UpdateProgress {
  from: string;
  to: string;
  phase: UpdatePhase;
  /** Seconds until the server stops, while warning. */
  secondsLeft: number | null;
  message: string;
}

export interface UpdateInfo {
  channel: Channel;
  current: string;
  latest: string;
  /** ISO time of the check. */
  checkedAt: string;
}

/** GET /api/factorio/versions */
export interface VersionsAnswer {
  installed: InstalledVersion[];
  available: AvailableVersion[];
  /** The running or last install; null when none has run since the panel started. */
  install: InstallProgress | null;
  update: UpdateProgress | null;
  /** Set when a newer version of the active channel is out. */
  updateAvailable: UpdateInfo | null;
  /** Whether a game (managed or by hand) is there to start. */
  gameFound: boolean;
  /** The channel updates follow. */
  channel: Channel;
  /** Set when factorio.com could not be reached for the available list. */
  availableError: string | null;
}

/** Messages of the "factorio_versions" room (JSON in the message string). */
export type VersionsMessage =
  | { kind: "install"; install: InstallProgress }
  | { kind: "update"; update: UpdateProgress }
  /** A check found a newer version than the last one announced (the push notifier listens). */
  | { kind: "update-available"; info: UpdateInfo }
  | { kind: "changed" };
