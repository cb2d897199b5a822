// Mod settings (mod-settings.dat) as the API carries them, and the rules both sides check a value with.
import type { ModSettingDefinition } from "./contract/modsettings.ts";

export type {
  ModSettingDefinition,
  ModSettingDefinitions,
  ModSettingsState,
  ModSettingsUpdate,
} from "./contract/modsettings.ts";

export type ModSettingSection = "startup" | "runtime-global" | "runtime-per-user";
export const MOD_SETTING_SECTIONS: ModSettingSection[] = ["startup", "runtime-global", "runtime-per-user"];

/** What a setting holds: the prototype types bool-setting, int-setting, double-setting, string-setting, color-setting. */
export type ModSettingKind = "bool" | "int" | "double" | "string" | "color";

export interface ModColor {
  r: number;
  g: number;
  b: number;
  a?: number;
}

/** The kind a stored value shows itself as, for settings no installed mod defines. */
export function kindOfValue(v: unknown): ModSettingKind | null {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "double";
  if (typeof v === "string") return "string";
  if (isColor(v)) return "color";
  return null;
}

export function isColor(v: unknown): v is ModColor {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  return keys.length > 0 &&
    keys.every((k) => ["r", "g", "b", "a"].includes(k) && typeof o[k] === "number" && Number.isFinite(o[k]));
}

/** Why `value` cannot be stored for `def`, or null when it can. */
export function checkSettingValue(
  def: Pick<ModSettingDefinition, "type" | "minimum" | "maximum" | "allowed_values" | "allow_blank">,
  value: unknown,
): string | null {
  switch (def.type) {
    case "bool":
      if (typeof value !== "boolean") return "must be true or false";
      return null;
    case "int":
    case "double":
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (def.type === "int" && !Number.isSafeInteger(value)) return "must be a whole number";
      if (def.minimum !== undefined && value < def.minimum) return `must be at least ${def.minimum}`;
      if (def.maximum !== undefined && value > def.maximum) return `must be at most ${def.maximum}`;
      break;
    case "string":
      if (typeof value !== "string") return "must be text";
      if (value === "" && def.allow_blank === false && !def.allowed_values) return "must not be empty";
      break;
    case "color":
      if (!isColor(value)) return "must be a colour {r, g, b, a}";
      return null;
  }
  if (def.allowed_values && !def.allowed_values.includes(value as string | number)) {
    return `must be one of ${def.allowed_values.join(", ")}`;
  }
  return null;
}
