// The export archive's format: a zip whose last entry, manifest.json, names the format and its version,
// the panel that wrote it, what is inside and the SHA-256 of every other entry. The panel's rows travel
// as JSON (panel/*.json), files as they are (mod-packs/, saves/, backups/, panel/settings/).
//
// A zip rather than a tar.gz: the reader seeks its central directory, so the whole archive is checked
// (every entry against the manifest) before anything is written, and each entry is then streamed out on
// its own; saves and backups are zips already and are stored, not compressed again.

import { isRole, type Role } from "../../shared/api.ts";
import { type ScheduleInput, scheduleProblem } from "../../shared/backups.ts";
import { type AlertEvent, CHANNEL_TYPES, type ChannelType, isAlertEvent } from "../../shared/alerts.ts";
import {
  channelTokenProblem,
  channelUrl,
  firstError,
  UNSAFE_TEXT,
  usernameProblem,
  validateChannel,
} from "../../shared/validation.ts";
import { CHANNEL_MSG } from "../../shared/messages.ts";
import { parseCron } from "../factorio/schedules/cron.ts";
import { importedHashProblem } from "../auth/password.ts";

export const FORMAT = "factorio-panel-export";
/** Raise when a reader of the old version would misread a new archive. */
export const FORMAT_VERSION = 1;
/**
 * One server's archive (--export-server): its own files and rows, imported as a new server. A reader of
 * format 1 would take its saves and schedules for the first server's, so it refuses it as newer.
 */
export const SERVER_FORMAT_VERSION = 2;
export const MANIFEST = "manifest.json";

export const USERS = "panel/users.json";
export const SCHEDULES = "panel/schedules.json";
export const CHANNELS = "panel/alert-channels.json";
export const SETTINGS_PREFIX = "panel/settings/";
/** The data dir's settings files that travel; mod-portal.json (a token) only with the secrets. */
export const SETTINGS_FILES = ["backups.json", "players.json", "mod-pins.json"] as const;
export const SECRET_SETTINGS_FILES = ["mod-portal.json"] as const;
export const PACKS_PREFIX = "mod-packs/";
export const SAVES_PREFIX = "saves/";
export const BACKUPS_PREFIX = "backups/";
/** A server archive's game files: mods/ (zips, mod-list.json, mod-settings.dat) and config/ (settings, player lists). */
export const MODS_PREFIX = "mods/";
export const CONFIG_PREFIX = "config/";
export const MOD_FILES = ["mod-list.json", "mod-settings.dat"] as const;
/** Not config.ini: its [path] names the source's folders. */
export const CONFIG_FILES = [
  "server-settings.json",
  "server-adminlist.json",
  "server-whitelist.json",
  "server-banlist.json",
] as const;
/** A server archive's player history: sessions, chat, online counts. */
export const HISTORY = "panel/player-history.json";

export interface Manifest {
  format: typeof FORMAT;
  format_version: number;
  panel_version: string;
  created: string;
  /** Whether password hashes, second factors, channel URLs, tokens and the portal login are inside. */
  secrets: boolean;
  contents: {
    users: string[];
    schedules: string[];
    alert_channels: string[];
    settings: string[];
    mod_packs: string[];
    saves: string[];
    backups: string[];
    /** A server archive's mod files and config files. */
    mods?: string[];
    config?: string[];
  };
  /** A server archive (format 2): the server it was, imported as a new one. */
  server?: ExportedServer;
  files: { path: string; size: number; sha256: string }[];
}

export interface ExportedServer {
  id: number;
  name: string;
  /** Its game port. */
  port: number;
  /** Its active game version ("" for a game installed by hand). */
  version: string;
}

export interface ExportedHistory {
  sessions: { name: string; joined_at: number; left_at: number | null; end_reason: string | null }[];
  chat: { at: number; name: string; message: string }[];
  counts: { at: number; count: number }[];
}

export interface ExportedUser {
  username: string;
  role: Role;
  email: string;
  /** Only with the secrets. */
  password_hash?: string;
  totp?: { secret: string; confirmed_at: number | null; last_step: number };
  recovery_codes?: { code_hash: string; used_at: number | null }[];
  passkeys?: {
    id: string;
    name: string;
    public_key: string;
    counter: number;
    transports: string;
    created_at: number;
    last_used_at: number | null;
  }[];
}

export type ExportedSchedule = ScheduleInput;

export interface ExportedChannel {
  type: ChannelType;
  name: string;
  events: AlertEvent[];
  enabled: boolean;
  priority: number | null;
  /** The URL, ntfy topic and token, webhook secret: only with the secrets. */
  url?: string;
  topic?: string | null;
  token?: string | null;
  secret?: string | null;
}

export class ArchiveError extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string";
const strList = (v: unknown): v is string[] => Array.isArray(v) && v.every(str);

export function checkManifest(v: unknown): Manifest {
  if (!isObj(v) || v.format !== FORMAT) {
    throw new ArchiveError("it is not an export of this panel (manifest.json names another format)");
  }
  const version = v.format_version;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new ArchiveError("its manifest has no format version");
  }
  if (version > SERVER_FORMAT_VERSION) {
    throw new ArchiveError(
      `it was made by a newer panel (${
        str(v.panel_version) ? v.panel_version : "unknown version"
      }, archive format ${version}); ` +
        `this panel reads format ${SERVER_FORMAT_VERSION} and older. Update this panel first.`,
    );
  }
  const c = v.contents;
  const lists = [
    "users",
    "schedules",
    "alert_channels",
    "settings",
    "mod_packs",
    "saves",
    "backups",
  ] as const;
  if (
    !isObj(c) || !lists.every((k) => strList(c[k])) || typeof v.secrets !== "boolean" || !str(v.created) ||
    !str(v.panel_version)
  ) {
    throw new ArchiveError("its manifest is incomplete");
  }
  if (
    !Array.isArray(v.files) ||
    !v.files.every((f) => isObj(f) && str(f.path) && typeof f.size === "number" && str(f.sha256))
  ) {
    throw new ArchiveError("its manifest's file list is damaged");
  }
  if (version >= SERVER_FORMAT_VERSION) {
    const srv = v.server;
    if (
      !isObj(srv) || typeof srv.id !== "number" || !str(srv.name) || typeof srv.port !== "number" ||
      !str(srv.version) || !strList(c.mods) || !strList(c.config)
    ) {
      throw new ArchiveError("its manifest names no server");
    }
  } else if (v.server !== undefined) throw new ArchiveError("its manifest is incomplete");
  return v as unknown as Manifest;
}

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const numOrNull = (v: unknown) => v === null || num(v);

export function checkHistory(v: unknown): ExportedHistory {
  if (!isObj(v) || !Array.isArray(v.sessions) || !Array.isArray(v.chat) || !Array.isArray(v.counts)) {
    throw new ArchiveError(`${HISTORY} is damaged`);
  }
  v.sessions.forEach((s, i) => {
    if (
      !isObj(s) || !str(s.name) || !num(s.joined_at) || !numOrNull(s.left_at) ||
      !(s.end_reason === null || str(s.end_reason))
    ) bad(HISTORY, i, "not a player session");
  });
  v.chat.forEach((l, i) => {
    if (!isObj(l) || !num(l.at) || !str(l.name) || !str(l.message)) bad(HISTORY, i, "not a chat line");
  });
  v.counts.forEach((n, i) => {
    if (!isObj(n) || !num(n.at) || !num(n.count)) bad(HISTORY, i, "not an online count");
  });
  return v as unknown as ExportedHistory;
}

function bad(file: string, i: number, why: string): never {
  throw new ArchiveError(`${file}, entry ${i + 1}: ${why}`);
}

export function checkUsers(v: unknown): ExportedUser[] {
  if (!Array.isArray(v)) throw new ArchiveError(`${USERS} is not a list`);
  const seen = new Set<string>();
  return v.map((u, i) => {
    if (!isObj(u) || !str(u.username) || !str(u.email) || !isRole(u.role)) bad(USERS, i, "not a user");
    const name = u.username;
    if (name === "" || name !== name.trim()) bad(USERS, i, "not a valid username");
    const nameProblem = usernameProblem(name);
    if (nameProblem) bad(USERS, i, nameProblem);
    if (seen.has(name.toLowerCase())) bad(USERS, i, `${name} is there twice`);
    seen.add(name.toLowerCase());
    if (u.password_hash !== undefined && (!str(u.password_hash) || u.password_hash === "")) {
      bad(USERS, i, "a damaged password hash");
    }
    // Checked at each sign-in with the cost it names: only the panel's own parameters come in.
    const hashProblem = u.password_hash === undefined ? null : importedHashProblem(u.password_hash);
    if (hashProblem) bad(USERS, i, `the password hash of ${name} ${hashProblem}`);
    if (u.totp !== undefined && (!isObj(u.totp) || !str(u.totp.secret))) {
      bad(USERS, i, "a damaged second factor");
    }
    if (
      u.recovery_codes !== undefined &&
      (!Array.isArray(u.recovery_codes) || !u.recovery_codes.every((r) => isObj(r) && str(r.code_hash)))
    ) {
      bad(USERS, i, "damaged recovery codes");
    }
    if (
      u.passkeys !== undefined &&
      (!Array.isArray(u.passkeys) || !u.passkeys.every((p) => isObj(p) && str(p.id) && str(p.public_key)))
    ) {
      bad(USERS, i, "damaged passkeys");
    }
    return u as unknown as ExportedUser;
  });
}

// Rows are checked by the rules the API applies to the same fields (shared/), so an import brings in
// nothing the panel would refuse from its own forms.

export function checkSchedules(v: unknown): ExportedSchedule[] {
  if (!Array.isArray(v)) throw new ArchiveError(`${SCHEDULES} is not a list`);
  return v.map((s, i) => {
    if (!isObj(s)) bad(SCHEDULES, i, "not a schedule");
    const problem = scheduleProblem(s);
    if (problem) bad(SCHEDULES, i, problem);
    try {
      // A stored cron that does not parse would be switched off at the next start: refuse it here.
      parseCron(s.cron, "UTC");
    } catch (e) {
      bad(SCHEDULES, i, (e as Error).message);
    }
    return s as unknown as ExportedSchedule;
  });
}

export function checkChannels(v: unknown): ExportedChannel[] {
  if (!Array.isArray(v)) throw new ArchiveError(`${CHANNELS} is not a list`);
  return v.map((c, i) => {
    if (!isObj(c) || !(CHANNEL_TYPES as readonly unknown[]).includes(c.type) || !str(c.name)) {
      bad(CHANNELS, i, "not a channel");
    }
    if (!Array.isArray(c.events) || !c.events.every(isAlertEvent) || typeof c.enabled !== "boolean") {
      bad(CHANNELS, i, "damaged events");
    }
    if (c.url !== undefined && !str(c.url)) bad(CHANNELS, i, "a damaged URL");
    if (c.priority !== undefined && c.priority !== null && typeof c.priority !== "number") {
      bad(CHANNELS, i, CHANNEL_MSG.priorityInvalid);
    }
    const problem = firstError(validateChannel(c)) ??
      (str(c.secret) ? channelTokenProblem(c.secret) : undefined);
    if (problem) bad(CHANNELS, i, problem);
    // Kept as the API keeps it (absolute, normalised).
    return {
      ...c,
      name: c.name.trim(),
      ...(str(c.url) && c.url !== "" ? { url: channelUrl(c.url) } : {}),
    } as unknown as ExportedChannel;
  });
}

/** A relative path inside a mod pack: plain segments, none hidden, none "..". */
export function safeRelative(rest: string): boolean {
  const parts = rest.split("/");
  return parts.length <= 8 &&
    parts.every((p) =>
      p !== "" && p !== "." && p !== ".." && !p.startsWith(".") && !p.includes("\\") && !UNSAFE_TEXT.test(p)
    );
}
