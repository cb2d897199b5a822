// Mod settings (mod-settings.dat) as the API carries them, and the rules both sides check a value with.

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

/** GET /api/mods/settings, and the body of POST /api/mods/settings/update (there a value may be null: remove it). */
export interface ModSettingsState {
  /** The version of the game that wrote the file, "x.y.z.b". */
  version: string;
  settings: Record<ModSettingSection, Record<string, { value: unknown }>>;
  /**
   * The file the last upload replaced, kept so it can be restored (POST /api/mods/settings/restore-previous):
   * when it was replaced (RFC 3339) and the version that wrote it. Null when there is none.
   */
  previous: { replaced: string; version: string } | null;
}

export interface ModSettingsUpdate {
  settings: Partial<Record<ModSettingSection, Record<string, { value: unknown } | null>>>;
}

/** A setting as an installed mod declares it in settings.lua (only what was written as literal values). */
export interface ModSettingDefinition {
  mod: string;
  name: string;
  setting_type: ModSettingSection;
  type: ModSettingKind;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  allowed_values?: (string | number)[];
  allow_blank?: boolean;
  auto_trim?: boolean;
  hidden?: boolean;
  order?: string;
  /** From the mod's locale/en files; absent when the mod has none. */
  title?: string;
  description?: string;
}

/** GET /api/mods/settings/definitions. */
export interface ModSettingDefinitions {
  definitions: ModSettingDefinition[];
  /** Mods whose settings.lua could not be read, and why. */
  problems: { mod: string; message: string }[];
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
  return keys.length > 0 && keys.every((k) => ["r", "g", "b", "a"].includes(k) && typeof o[k] === "number" && Number.isFinite(o[k]));
}

/** Why `value` cannot be stored for `def`, or null when it can. */
export function checkSettingValue(def: Pick<ModSettingDefinition, "type" | "minimum" | "maximum" | "allowed_values" | "allow_blank">, value: unknown): string | null {
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
