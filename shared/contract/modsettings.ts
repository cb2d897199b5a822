// Mod settings: mod-settings.dat of the installed mods, as values by section, and what the mods declare.

import { z } from "zod";
import { file, type Routes } from "./route.ts";
import { MOD_SETTING_SECTIONS } from "../modsettings.ts";

const Section = z.enum(MOD_SETTING_SECTIONS);

/** GET /api/mods/settings, and the answer of every change. */
export const ModSettingsState = z.object({
  /** The version of the game that wrote the file, "x.y.z.b". */
  version: z.string(),
  settings: z.record(Section, z.record(z.string(), z.object({ value: z.unknown() }))),
  /**
   * The file the last upload replaced, kept so it can be restored (POST /api/mods/settings/restore-previous):
   * when it was replaced (RFC 3339) and the version that wrote it. Null when there is none.
   */
  previous: z.object({ replaced: z.string(), version: z.string() }).nullable(),
}).meta({ id: "ModSettingsState" });
export type ModSettingsState = z.infer<typeof ModSettingsState>;

/** POST /api/mods/settings/update: the settings to change; a null value removes one. */
export const ModSettingsUpdate = z.object({
  settings: z.partialRecord(Section, z.record(z.string(), z.object({ value: z.unknown() }).nullable())),
});
export type ModSettingsUpdate = z.infer<typeof ModSettingsUpdate>;

/** A setting as an installed mod declares it in settings.lua (only what was written as literal values). */
export const ModSettingDefinition = z.object({
  mod: z.string(),
  name: z.string(),
  setting_type: Section,
  type: z.enum(["bool", "int", "double", "string", "color"]),
  default: z.unknown().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  allowed_values: z.array(z.union([z.string(), z.number()])).optional(),
  allow_blank: z.boolean().optional(),
  auto_trim: z.boolean().optional(),
  hidden: z.boolean().optional(),
  order: z.string().optional(),
  /** From the mod's locale/en files; absent when the mod has none. */
  title: z.string().optional(),
  description: z.string().optional(),
});
export type ModSettingDefinition = z.infer<typeof ModSettingDefinition>;

/** GET /api/mods/settings/definitions. */
export const ModSettingDefinitions = z.object({
  definitions: z.array(ModSettingDefinition),
  /** Mods whose settings.lua could not be read, and why. */
  problems: z.array(z.object({ mod: z.string(), message: z.string() })),
});
export type ModSettingDefinitions = z.infer<typeof ModSettingDefinitions>;

export const modSettingsRoutes = {
  "GET /api/mods/settings": {
    summary: "The values of mod-settings.dat",
    role: "viewer",
    answer: ModSettingsState,
  },
  "GET /api/mods/settings/definitions": {
    summary: "The settings the installed mods declare",
    role: "viewer",
    answer: ModSettingDefinitions,
  },
  "POST /api/mods/settings/update": {
    summary: "Change mod settings",
    role: "operator",
    requiresStopped: "a change of mod settings",
    body: ModSettingsUpdate,
    answer: ModSettingsState,
  },
  "POST /api/mods/settings/upload": {
    summary: "Replace mod-settings.dat by an uploaded one (the replaced file is kept to restore)",
    role: "operator",
    requiresStopped: "an upload of mod settings",
    upload: "file",
    answer: ModSettingsState,
  },
  "POST /api/mods/settings/restore-previous": {
    summary: "Put back the mod-settings.dat the last upload replaced",
    role: "operator",
    requiresStopped: "a restore of mod settings",
    answer: ModSettingsState,
  },
  "GET /api/mods/settings/download": {
    summary: "mod-settings.dat",
    role: "viewer",
    answer: file("application/octet-stream"),
  },
} satisfies Routes;
