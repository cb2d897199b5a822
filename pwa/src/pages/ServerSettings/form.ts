// The Server Settings form as data: which input each key gets (from the type of its value, as the spec
// says), the help text from its _comment_ key, and the way back from the inputs to the settings object,
// checked with the same rules the server applies.

import {
  ADMINS_KEY,
  COMMENT_PREFIX,
  isCommentKey,
  isSecretSetting,
  SETTING_RULES,
  settingLabel,
  settingMessages,
  type Settings,
  type SettingsValue,
  splitList,
  validateSettings,
} from "../../../../shared/settings.ts";
import { playerNameError } from "../../../../shared/players.ts";

export type FieldKind = "bool" | "number" | "text" | "secret" | "select" | "list" | "flags" | "fixed";

export interface Field {
  key: string;
  kind: FieldKind;
  label: string;
  /** Lines of the matching _comment_ key. */
  help: string[];
}

/** A field, or a _comment_ key that documents no single field (e.g. _comment_credentials): a note. */
export type Item = { type: "field"; field: Field } | { type: "note"; key: string; lines: string[] };

export type FormValue = string | boolean | Record<string, boolean>;
export type FormValues = Record<string, FormValue>;

function commentLines(v: SettingsValue | undefined): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return [];
}

function isFlags(v: SettingsValue): v is Record<string, boolean> {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === "boolean");
}

export function kindOf(key: string, v: SettingsValue): FieldKind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "number";
  if (typeof v === "string") {
    if (SETTING_RULES[key]?.type === "enum") return "select";
    return isSecretSetting(key) ? "secret" : "text";
  }
  if (Array.isArray(v)) return "list";
  if (v !== null && isFlags(v)) return "flags";
  return "fixed";
}

export function layout(settings: Settings): Item[] {
  const items: Item[] = [];
  for (const [key, v] of Object.entries(settings)) {
    if (isCommentKey(key)) {
      const target = key.slice(COMMENT_PREFIX.length);
      if (!(target in settings)) items.push({ type: "note", key, lines: commentLines(v) });
      continue;
    }
    items.push({
      type: "field",
      field: {
        key,
        kind: kindOf(key, v),
        label: settingLabel(key),
        help: commentLines(settings[COMMENT_PREFIX + key]),
      },
    });
  }
  return items;
}

export function initialValues(settings: Settings): FormValues {
  const values: FormValues = {};
  for (const [key, v] of Object.entries(settings)) {
    if (isCommentKey(key)) continue;
    const kind = kindOf(key, v);
    if (kind === "bool") values[key] = v as boolean;
    else if (kind === "number") values[key] = String(v);
    else if (kind === "list") values[key] = (v as SettingsValue[]).join(", ");
    else if (kind === "flags") values[key] = { ...(v as Record<string, boolean>) };
    else if (kind !== "fixed") values[key] = v as string;
  }
  return values;
}

function numberError(key: string): string {
  const rule = SETTING_RULES[key];
  return rule?.type === "uint"
    ? settingMessages.wholeNumber(key, rule.min, rule.max)
    : `${key} must be a number.`;
}

/**
 * The object to send (spec: the same keys, tags and admins as lists, numbers as base-10 integers,
 * _comment_ keys unchanged), or the errors to show beside the fields. `admins` is sent only when it was
 * edited: the list also changes on the Players page and in the game, and an untouched field must not
 * undo those changes.
 */
export function buildBody(
  loaded: Settings,
  values: FormValues,
): { body: Settings; errors: Record<string, string> } {
  const body: Settings = {};
  const errors: Record<string, string> = {};
  for (const [key, original] of Object.entries(loaded)) {
    if (isCommentKey(key)) {
      body[key] = original;
      continue;
    }
    const kind = kindOf(key, original);
    const v = values[key];
    if (kind === "number") {
      const text = String(v).trim();
      const integer = Number.isInteger(original);
      if (integer ? /^-?\d+$/.test(text) : text !== "" && Number.isFinite(Number(text))) {
        body[key] = integer ? parseInt(text, 10) : Number(text);
      } else errors[key] = numberError(key);
    } else if (kind === "list") {
      const list = splitList(String(v));
      if (key === ADMINS_KEY && JSON.stringify(list) === JSON.stringify(original)) continue;
      body[key] = list;
    } else if (kind === "fixed") body[key] = original;
    else body[key] = v as SettingsValue;
  }
  for (const [key, message] of Object.entries(validateSettings(body, loaded))) errors[key] ??= message;
  if (Array.isArray(body[ADMINS_KEY]) && !errors[ADMINS_KEY]) {
    for (const name of body[ADMINS_KEY] as string[]) {
      const error = playerNameError(name);
      if (error) {
        errors[ADMINS_KEY] = `admins: ${error}.`;
        break;
      }
    }
  }
  return { body, errors };
}
