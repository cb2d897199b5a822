// Server settings (server-settings.json) and the game's config.ini.

import { z } from "zod";
import { JsonValue, Message, type Routes } from "./route.ts";

/**
 * server-settings.json as the API carries it: the game's keys and values, secrets masked (SECRET_MASK), and
 * the game's admins under "admins" (shared/settings.ts says why).
 */
export const Settings = z.record(z.string(), JsonValue).meta({ id: "Settings" });
export type Settings = z.infer<typeof Settings>;

/** config.ini: its sections, each of its keys and values as text. */
export const ConfigGroups = z.record(z.string(), z.record(z.string(), z.string()));
export type ConfigGroups = z.infer<typeof ConfigGroups>;

export const settingsRoutes = {
  "GET /api/settings": { summary: "server-settings.json (secrets masked)", role: "viewer", answer: Settings },
  "POST /api/settings/update": {
    summary: "Change server-settings.json (only admins may change a secret)",
    role: "operator",
    body: Settings,
    answer: Message,
  },
  "GET /api/config": { summary: "The game's config.ini", role: "viewer", answer: ConfigGroups },
} satisfies Routes;
