// Between the property tree of mod-settings.dat and the JSON the API speaks. A value the user did not change
// keeps its tree node as read, so an unchanged file is written back byte for byte; a changed value keeps
// the type it was stored with (an int stays a 64-bit integer, a 1.1 integer stays a double).

import type { ModSettingKind } from "../../../shared/modsettings.ts";
import { isColor } from "../../../shared/modsettings.ts";
import type { PEntry, PTree } from "./propertytree.ts";

export function treeToJson(t: PTree): unknown {
  switch (t.type) {
    case "none":
      return null;
    case "bool":
      return t.value;
    case "double":
      return Number.isFinite(t.value) ? t.value : null;
    case "int":
    case "uint":
      return Number(t.value);
    case "string":
      return t.value ?? "";
    case "list":
      return t.entries.map((e) => treeToJson(e.value));
    case "dict": {
      const o: Record<string, unknown> = {};
      for (const e of t.entries) o[e.key ?? ""] = treeToJson(e.value);
      return o;
    }
  }
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export const dict = (entries: PEntry[]): PTree => ({ type: "dict", any: false, entries });
export const entry = (key: string, value: PTree): PEntry => ({ key, value });

/** The kind a stored node holds, as far as the editor is concerned; null for shapes no setting has. */
export function kindOfTree(t: PTree): ModSettingKind | null {
  switch (t.type) {
    case "bool":
      return "bool";
    case "double":
      return "double";
    case "int":
    case "uint":
      return "int";
    case "string":
      return "string";
    case "dict":
      return t.entries.every((e) =>
          e.key !== null && ["r", "g", "b", "a"].includes(e.key) && e.value.type === "double"
        ) &&
          t.entries.length > 0
        ? "color"
        : null;
    default:
      return null;
  }
}

/**
 * A node holding `value` in the stored node's type (`stored`), or in the type a definition gives (`kind`)
 * for a setting not in the file. `intsAsDoubles`: files of 1.1 and older store integers as doubles.
 * Answers a message instead when the value does not fit the type.
 */
export function valueToTree(
  value: unknown,
  stored: PTree | null,
  kind: ModSettingKind,
  intsAsDoubles: boolean,
): PTree | string {
  if (stored && jsonEqual(treeToJson(stored), value)) return stored;
  const any = stored?.any ?? false;
  if (stored?.type === "uint" || stored?.type === "int") {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) return "must be a whole number";
    if (stored.type === "uint" && value < 0) return "must not be negative";
    return { type: stored.type, any, value: BigInt(value) };
  }
  switch (kind) {
    case "bool":
      return typeof value === "boolean" ? { type: "bool", any, value } : "must be true or false";
    case "int":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return "must be a whole number";
      return intsAsDoubles || stored?.type === "double"
        ? { type: "double", any, value }
        : { type: "int", any, value: BigInt(value) };
    case "double":
      return typeof value === "number" && Number.isFinite(value)
        ? { type: "double", any, value }
        : "must be a number";
    case "string":
      return typeof value === "string" ? { type: "string", any, value } : "must be text";
    case "color": {
      if (!isColor(value)) return "must be a colour {r, g, b, a}";
      const keys = stored?.type === "dict" ? stored.entries.map((e) => e.key as string) : [];
      for (const k of ["r", "g", "b", "a"]) if (k in value && !keys.includes(k)) keys.push(k);
      const v = value as unknown as Record<string, number>;
      return {
        type: "dict",
        any,
        entries: keys.filter((k) => k in v).map((k) => entry(k, { type: "double", any: false, value: v[k] })),
      };
    }
  }
}
