// The API's entity types, written once for both sides. Field names follow the wire format of the
// long-standing panel this API is compatible with (see docs/architecture.md), hence the snake_case.

import { ALERT_CATALOGUE, type AlertEvent, isAlertEvent, type QuietHours } from "./alerts.ts";
import type { SecondFactorRequired } from "./access.ts";

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

export interface RoleChange {
  username: string;
  role: Role;
}

/** What GET /api/user/status, POST /api/login and GET /api/user/list answer per user. Never a hash. */
export interface User {
  username: string;
  role: Role;
  email: string;
  /** Only on the signed-in user, when the panel requires a second factor this admin has not set up. */
  must_enrol?: boolean;
  /** Only on the session user: true while they still use the password the first start generated. */
  generated_password?: boolean;
}

/**
 * POST /api/login's answer: the second step, or the user with the game server's status (when their
 * session may read it), so the first page shows without one more round trip on a slow network.
 */
export type LoginAnswer = (User & { server_status?: ServerStatus }) | SecondFactorRequired;

export interface LoginRequest {
  username: string;
  password: string;
}

export interface NewUser {
  username: string;
  role: Role;
  email: string;
  password: string;
  password_confirmation: string;
}

export interface PasswordChange {
  old_password: string;
  new_password: string;
  new_password_confirmation: string;
}

// ---- Server ----

/** The game process as the panel sees it. "running" only once the game reports it is hosting. */
export type ServerState = "stopped" | "starting" | "running" | "stopping";

/** How the last run of the game ended, for the UI and the notifier. */
export interface ServerExit {
  /**
   * "stopped": Save & Stop; "killed": Kill; "crashed": an exit the panel did not ask for after the game was
   * hosting; "start-failed": the game ended while starting (a bad save, a taken port, a broken mod).
   */
  reason: "stopped" | "killed" | "crashed" | "start-failed";
  code: number | null;
  signal: string | null;
  at: string;
  last_lines: string[];
}

export interface ServerStatus {
  status: ServerState;
  /** Compatibility with the old API: true while the game process is up. */
  running: boolean;
  address: string;
  bindip: string;
  port: number;
  savefile: string;
  fac_version: string;
  base_mod_version: string;
  /** ISO time of the last status change. */
  since: string;
  last_exit: ServerExit | null;
  /** ISO time the current run started (uptime), null while stopped. */
  started_at: string | null;
  /** Whether the game's executable exists where the panel looks for it. */
  factorio_found: boolean;
  /** The Factorio directory, for "no game found in ..." messages. */
  factorio_dir: string;
  /** Things the admin should know about the game server right now, in plain words (empty when all is well). */
  problems: string[];
  /**
   * What the last start asked for (its save as asked: "Load Latest" stays so), kept across panel restarts:
   * the start form offers it on every device. Null before the first start.
   */
  last_start: { bindip: string; port: number; savefile: string } | null;
}

export interface FactorioVersionInfo {
  version: string;
  base_mod_version: string;
}

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

// ---- Saves ----

/** An entry of GET /api/saves/list. `last_mod` is an RFC 3339 time; the UI shows it in UTC. */
export interface Save {
  name: string;
  last_mod: string;
  size: number;
  /**
   * The game version that wrote the save, from its header ("2.0.28.0", as SaveHeader.factorio_version);
   * null for "Load Latest" and for a file whose header cannot be read. Added to the old API's entry; this
   * panel always sends it (optional only for entries made elsewhere, such as tests of other pages).
   */
  factorio_version?: string | null;
}

/** A mod as a save's header lists it. `built_in` marks mods that ship with the game. */
export interface SaveMod {
  name: string;
  /** Four-part version, as the old API printed it ("1.1.6.0"). */
  version: string;
  crc: number | null;
  built_in: boolean;
}

/** POST /api/saves/mods: what the save's level-init.dat / level.dat header says. */
export interface SaveHeader {
  factorio_version: string;
  campaign: string;
  name: string;
  base_mod: string;
  difficulty: number;
  finished: boolean;
  player_won: boolean;
  next_level: string;
  can_continue: boolean;
  finished_but_continuing: boolean;
  saving_replay: boolean;
  allow_non_admin_debug_options: boolean;
  loaded_from: string;
  loaded_from_build: number;
  allowed_commands: number;
  mods: SaveMod[];
}

// ---- Mods ----

/**
 * An installed mod (GET /api/mods/list and the mod tables of packs). The old API's ModsResult, plus
 * `built_in`, `error` and `other_versions`. Versions: `version` as info.json has it, `factorio_version`
 * with four parts ("1.1.0.0") as the old API printed it.
 */
export interface Mod {
  name: string;
  title: string;
  author: string;
  version: string;
  file_name: string;
  factorio_version: string;
  dependencies: string[] | null;
  compatibility: boolean;
  enabled: boolean;
  /** Ships with the game in data/ (base, space-age...): can be toggled, never deleted or downloaded. */
  built_in: boolean;
  /** Why the zip could not be read; such a mod is listed (by file name) only so it can be deleted. */
  error: string | null;
  /** Other versions of the same mod also in the folder; the game loads `version`. */
  other_versions: string[];
  /** The admin pinned it at its installed version: no update badge, skipped by "Update all" and scheduled updates. */
  pinned?: boolean;
}

export interface ModList {
  mods: Mod[];
}

/** A dependency the panel could not install along with a mod, and why. */
export interface MissingDependency {
  name: string;
  reason: string;
}

/** POST /api/mods/portal/install: the mods afterwards and what was installed along with the mod. */
export interface InstallResult extends ModList {
  dependencies_added: string[];
  dependencies_missing: MissingDependency[];
}

/** A mod of a save, as POST /api/mods/portal/install/multiple takes it (SaveMod's fields; crc ignored). */
export interface WantedMod {
  name: string;
  version: string;
  built_in?: boolean;
}

/**
 * POST /api/mods/portal/install/multiple. A failure (424) answers only its message as a JSON string (what
 * the old panel's UI can show), unless asked with ?detail=1: then this, with `message`.
 */
export interface InstallMultipleResult extends ModList {
  /** Downloaded from the portal. */
  installed: string[];
  /** Already there in the wanted version. */
  present: string[];
  /** Built-in mods switched on (those of the save) or off (the game's others). */
  toggled: { name: string; enabled: boolean }[];
  failed: { name: string; version: string; reason: string }[];
  /** On a 424: which mods could not be installed, and why, in words. */
  message?: string;
}

export interface ModPack {
  name: string;
  mods: ModList;
}

/** An entry of GET /api/mods/portal/list. */
export interface PortalListEntry {
  name: string;
  title: string;
}

export interface PortalList {
  results: PortalListEntry[];
}

/** A release of GET /api/mods/portal/info/{name}; versions four-part as in the old API. */
export interface PortalRelease {
  version: string;
  download_url: string;
  file_name: string;
  released_at: string;
  sha1: string;
  info_json: { factorio_version: string; dependencies?: string[] };
  /** Fits the game this panel runs. */
  compatibility: boolean;
}

export interface PortalModInfo {
  name: string;
  title: string;
  owner: string;
  summary: string;
  downloads_count: number;
  releases: PortalRelease[];
}

/** What POST /api/mods/update (and the pack variant) take: one release of the portal for one mod. */
export interface ModUpdateRequest {
  modName: string;
  downloadUrl: string;
  fileName: string;
}

/** GET /api/mods/updates: an installed mod with a newer release that fits the game. */
export interface ModUpdate extends ModUpdateRequest {
  current: string;
  version: string;
}

/** GET /api/mods/portal/progress: downloads in flight. */
export interface DownloadProgress {
  name: string;
  version: string;
  received: number;
  /** 0 when the portal did not say. */
  total: number;
}

// ---- Players (admin, whitelist and ban lists) ----

/** An entry of server-banlist.json. The game may also store an address; the panel keeps it untouched. */
export interface BanEntry {
  username: string;
  reason: string;
}

/** GET /api/players and the answer of every list change. */
export interface PlayerLists {
  admins: string[];
  whitelist: string[];
  /** Passed to the game at start as --use-server-whitelist. */
  use_whitelist: boolean;
  bans: BanEntry[];
  /** True while the game runs: changes go to it over RCON at once as well as to the files. */
  live: boolean;
}

/** GET /api/players/online. */
export interface OnlinePlayers {
  players: string[];
}

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

/** GET /api/push/key. */
export interface PushKey {
  publicKey: string;
}

/** The browser's PushSubscription.toJSON(), as POST /api/push/subscribe takes it. */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

export interface PushSubscribeRequest {
  subscription: PushSubscriptionJson;
  /** Shown in the device list; derived from the browser's user agent when left out. */
  name?: string;
  events?: PushEvent[];
}

/** One of the signed-in user's devices (GET /api/push/devices). */
export interface PushDevice {
  id: number;
  name: string;
  /** The push service URL: the page compares it with its own subscription to find "this device". */
  endpoint: string;
  events: PushEvent[];
  created_at: string;
  last_success_at: string | null;
  /** The last failed delivery, when it came after the last success. */
  last_error: string | null;
  /** No alerts in these hours, except critical ones; null when not set. */
  quiet_hours: QuietHours | null;
}

/** POST /api/push/devices/:id. */
export interface PushDeviceUpdate {
  name?: string;
  events?: PushEvent[];
  quiet_hours?: QuietHours | null;
}

/** POST /api/push/test answers one of these per device it tried. */
export interface PushTestResult {
  id: number;
  name: string;
  ok: boolean;
  /** The push service's HTTP status, null when it could not be reached. */
  status: number | null;
  message: string;
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
