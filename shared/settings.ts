// server-settings.json as the panel understands it: which keys the game documents and what each may hold,
// which values are secrets, and the rules both the Server Settings form and POST /api/settings/update
// apply, so the form refuses exactly what the server would refuse, with the same words.

import { unsafeTextError } from "./validation.ts";
import type { Settings } from "./contract/settings.ts";

export type { ConfigGroups, Settings } from "./contract/settings.ts";
export type SettingsValue = Settings[string];

/** Documentation keys of the game's file; never editable. */
export const COMMENT_PREFIX = "_comment_";

export function isCommentKey(key: string): boolean {
  return key.startsWith(COMMENT_PREFIX);
}

/**
 * What GET /api/settings answers in place of a stored secret. Sent back unchanged, it keeps the stored
 * value; an empty string clears it; anything else replaces it. Bullets, because no factorio.com password
 * or token is made of them, and a revealed field then still reads as "hidden".
 */
export const SECRET_MASK = "\u2022".repeat(8);

/** The factorio.com password, the auth token and the game password: never sent back in clear. */
export function isSecretSetting(key: string): boolean {
  if (isCommentKey(key)) return false;
  return key.includes("password") || key === "token" || key.endsWith("_token");
}

/**
 * The admins of the game live in server-adminlist.json (the game dropped `admins` from server-settings in
 * 0.17). The API shows that list under this key so the spec's form can edit it; it is never written into
 * server-settings.json.
 */
export const ADMINS_KEY = "admins";
export const ADMINS_COMMENT =
  "Players with admin rights. Kept in server-adminlist.json, not in this file; the Players page edits the same list.";

/** The values of allow_commands (a string in the game's file, not a boolean). */
export const ALLOW_COMMANDS = ["true", "false", "admins-only"] as const;

/** Largest count the game stores (unsigned 32-bit). */
export const UINT_MAX = 4294967295;

export type SettingRule =
  | { type: "text" }
  | { type: "bool" }
  | { type: "uint"; min: number; max: number }
  | { type: "enum"; values: readonly string[] }
  | { type: "list" }
  | { type: "flags" };

const text = { type: "text" } as const;
const bool = { type: "bool" } as const;
const uint = (min = 0, max = UINT_MAX) => ({ type: "uint", min, max }) as const;

/** The keys of the game's server-settings.example.json (1.1 to 2.1) and what each may hold. */
export const SETTING_RULES: Record<string, SettingRule> = {
  name: text,
  description: text,
  tags: { type: "list" },
  max_players: uint(),
  visibility: { type: "flags" },
  username: text,
  password: text,
  token: text,
  game_password: text,
  require_user_verification: bool,
  max_upload_in_kilobytes_per_second: uint(),
  max_upload_slots: uint(),
  minimum_latency_in_ticks: uint(),
  max_heartbeats_per_second: uint(6, 240),
  ignore_player_limit_for_returning_players: bool,
  allow_commands: { type: "enum", values: ALLOW_COMMANDS },
  autosave_interval: uint(),
  autosave_slots: uint(),
  afk_autokick_interval: uint(),
  auto_pause: bool,
  auto_pause_when_players_connect: bool,
  only_admins_can_pause_the_game: bool,
  autosave_only_on_server: bool,
  non_blocking_saving: bool,
  minimum_segment_size: uint(),
  minimum_segment_size_peer_count: uint(),
  maximum_segment_size: uint(),
  maximum_segment_size_peer_count: uint(),
  [ADMINS_KEY]: { type: "list" },
};

/** The visibility flags the game knows (steam was dropped after 0.17; kept when a file still has it). */
export const VISIBILITY_FLAGS = ["public", "lan", "steam"];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return "text";
  if (typeof v === "number") return "a number";
  if (typeof v === "boolean") return "true or false";
  return "an object";
}

export const settingMessages = {
  wholeNumber: (key: string, min: number, max: number) =>
    max === UINT_MAX
      ? `${key} must be a whole number, ${min} or more.`
      : `${key} must be a whole number from ${min} to ${max}.`,
  bool: (key: string) => `${key} must be true or false.`,
  text: (key: string) => `${key} must be text.`,
  list: (key: string) => `${key} must be a list of texts.`,
  oneOf: (key: string, values: readonly string[]) =>
    `${key} must be one of ${values.slice(0, -1).map((v) => `"${v}"`).join(", ")} or "${values.at(-1)}".`,
  unknown: (key: string) => `${key} is not a setting of server-settings.json.`,
  sameType: (key: string, was: string) => `${key} must stay ${was}, as in server-settings.json.`,
};

function ruleError(key: string, rule: SettingRule, v: unknown): string | undefined {
  switch (rule.type) {
    case "text":
      return typeof v === "string" ? undefined : settingMessages.text(key);
    case "bool":
      return typeof v === "boolean" ? undefined : settingMessages.bool(key);
    case "uint":
      return typeof v === "number" && Number.isInteger(v) && v >= rule.min && v <= rule.max
        ? undefined
        : settingMessages.wholeNumber(key, rule.min, rule.max);
    case "enum":
      return typeof v === "string" && rule.values.includes(v)
        ? undefined
        : settingMessages.oneOf(key, rule.values);
    case "list":
      return Array.isArray(v) && v.every((x) => typeof x === "string")
        ? undefined
        : settingMessages.list(key);
    case "flags":
      return isPlainObject(v) ? undefined : `${key} must be an object of true/false flags.`;
  }
}

/** A value of a key the panel does not know must keep the JSON type it has in the file. */
function sameTypeError(key: string, current: unknown, v: unknown): string | undefined {
  if (current === null || current === undefined) return undefined;
  if (typeof current === "number") {
    if (typeof v !== "number" || !Number.isFinite(v)) return settingMessages.sameType(key, "a number");
    if (Number.isInteger(current) && !Number.isInteger(v)) {
      return settingMessages.sameType(key, "a whole number");
    }
    return undefined;
  }
  if (Array.isArray(current)) return Array.isArray(v) ? undefined : settingMessages.sameType(key, "a list");
  if (isPlainObject(current)) {
    return isPlainObject(v) ? undefined : settingMessages.sameType(key, "an object");
  }
  return typeof v === typeof current ? undefined : settingMessages.sameType(key, describe(current));
}

/**
 * Checks the editable keys of `body` against the rules and against `current` (the file as it is). Returns
 * one message per refused key, each naming the key; an empty object when everything may be saved.
 * `_comment_` keys are not checked: they are never written.
 */
export function validateSettings(
  body: Record<string, unknown>,
  current: Record<string, unknown>,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (isCommentKey(key)) continue;
    // Own keys only: "constructor", "toString" or "__proto__" must not pass as rules or file keys.
    const rule = Object.hasOwn(SETTING_RULES, key) ? SETTING_RULES[key] : undefined;
    let error: string | undefined;
    if (rule) error = ruleError(key, rule, value);
    else if (!Object.hasOwn(current, key)) error = settingMessages.unknown(key);
    else error = sameTypeError(key, current[key], value);
    if (!error && rule?.type === "flags") {
      error = flagsError(key, value as Record<string, unknown>, current[key]);
    }
    if (!error) error = textError(key, value);
    if (error) errors[key] = error;
  }
  return errors;
}

/** Text in the file must be clean (NULs and bidi controls were written before); a description may have lines. */
function textError(key: string, value: unknown): string | undefined {
  const texts = typeof value === "string"
    ? [value]
    : Array.isArray(value)
    ? value.filter((v) => typeof v === "string")
    : [];
  for (const text of texts) {
    const checked = key === "description" ? text.replace(/\r?\n|\t/g, " ") : text;
    const problem = unsafeTextError(checked, key);
    if (problem) return problem;
  }
  return undefined;
}

function flagsError(key: string, value: Record<string, unknown>, current: unknown): string | undefined {
  const known = new Set<string>([
    ...VISIBILITY_FLAGS,
    ...(isPlainObject(current) ? Object.keys(current) : []),
  ]);
  for (const [flag, v] of Object.entries(value)) {
    if (!known.has(flag)) return `${key}.${flag} is not a ${key} option of the game.`;
    if (typeof v !== "boolean") return settingMessages.bool(`${key}.${flag}`);
  }
  return undefined;
}

/** The form's label: the key with underscores turned into spaces (spec). */
export function settingLabel(key: string): string {
  return key.replaceAll("_", " ");
}

/** Splits the form's comma-separated text into a list (spec: tags and admins). */
export function splitList(text: string): string[] {
  return text.split(",").map((s) => s.trim()).filter((s) => s !== "");
}
