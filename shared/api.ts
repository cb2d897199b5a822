// The API's entity types for both sides, and the rules about roles. The types are those of the API
// contract (shared/contract/, one definition each: a zod schema and its type), exported here under the
// names importers know. Field names follow the wire format of the long-standing panel this API is
// compatible with (see docs/architecture.md), hence the snake_case.

import { ALERT_CATALOGUE, type AlertEvent, isAlertEvent } from "./alerts.ts";

export type {
  LoginAnswer,
  LoginRequest,
  NewUser,
  PasswordChange,
  RoleChange,
  User,
} from "./contract/auth.ts";
export type { FactorioVersionInfo, ServerExit, ServerState, ServerStatus } from "./contract/server.ts";
export type { Save, SaveHeader, SaveMod } from "./contract/saves.ts";
export type { Mod, ModList, ModUpdate, ModUpdateRequest } from "./contract/mods.ts";
export type {
  DownloadProgress,
  InstallMultipleResult,
  InstallResult,
  MissingDependency,
  PortalList,
  PortalListEntry,
  PortalModInfo,
  PortalRelease,
  WantedMod,
} from "./contract/portal.ts";
export type { ModPack } from "./contract/modpacks.ts";
export type { BanEntry, OnlinePlayers, PlayerLists } from "./contract/players.ts";
export type {
  PushDevice,
  PushDeviceUpdate,
  PushKey,
  PushSubscribeRequest,
  PushSubscriptionJson,
  PushTestResult,
} from "./contract/push.ts";

// ---- Session and users ----

/**
 * Panel roles, weakest first: viewer reads, operator runs the game (start, stop, console, saves, mods,
 * players...), admin also manages panel users, notification channels and the settings' secrets.
 */
export type Role = "viewer" | "operator" | "admin";
export const ROLES: readonly Role[] = ["viewer", "operator", "admin"];

export function isRole(v: unknown): v is Role {
  return typeof v === "string" && (ROLES as readonly string[]).includes(v);
}

/** True when `have` includes everything `need` may do. */
export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

// ---- Server ----

/** A start of the game as the panel runs it: the start form's fields, checked (POST /api/server/start), or a scenario. */
export interface StartRequest {
  bindip: string;
  port: number;
  savefile: string;
  /**
   * Start a new map from this scenario ("[mod/]name", --start-server-load-scenario) instead of a save. The
   * run then counts as "Load Latest": a restart loads the newest save rather than a fresh scenario.
   */
  scenario?: string;
}

export const LOAD_LATEST = "Load Latest";
export const DEFAULT_GAME_PORT = 34197;
export const DEFAULT_BIND_IP = "0.0.0.0";

// ---- Push notifications ----

/** Events a device can be alerted about: every alert event (shared/alerts.ts). */
export type PushEvent = AlertEvent;

/** The event catalogue, in display order, with what a new device gets unless it chooses. */
export const PUSH_EVENTS = ALERT_CATALOGUE;

/** A new device gets the alerts about the game being down, not the chatter. */
export const DEFAULT_PUSH_EVENTS: readonly PushEvent[] = ["crashed", "stopped", "start-failed", "still-down"];

export function isPushEvent(value: unknown): value is PushEvent {
  return isAlertEvent(value);
}

/** What the service worker receives in a push (JSON, well under the 4 KiB limit of push services). */
export interface PushPayload {
  kind: PushEvent | "test";
  title: string;
  body: string;
  /** Notifications with one tag replace each other on the device. */
  tag: string;
  /** Opened (or focused) when the notification is clicked. */
  url: string;
  /** ISO time of the event. */
  at: string;
}
