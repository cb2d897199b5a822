// New worlds: what the generator offers, previews rendered by the game, creating a world with settings,
// scenarios, and map exchange strings.

import { z } from "zod";
import { file, JsonObject, Message, type Routes } from "./route.ts";
import { StartBody } from "./server.ts";
import { PANEL_MSG } from "../messages.ts";

/** The two settings files of a new world, in the shapes of the game's example files. */
export const WorldSettings = z.object({ map_gen_settings: JsonObject, map_settings: JsonObject });
export type WorldSettings = z.infer<typeof WorldSettings>;

/** POST /api/world/exchange-string/decode answers this; encode takes it ("version" optional: the game's). */
export const ExchangeStringData = WorldSettings.extend({
  /** The game version that made the string, "x.y.z.b". */
  version: z.string(),
});
export type ExchangeStringData = z.infer<typeof ExchangeStringData>;

export const WorldPreset = z.object({
  name: z.string(),
  order: z.string(),
  default: z.boolean(),
  /** What the preset changes, in the shape of map-gen-settings (basic) and map-settings (advanced). */
  basic_settings: JsonObject,
  advanced_settings: JsonObject,
});
export type WorldPreset = z.infer<typeof WorldPreset>;

/** GET /api/world/generator. */
export const GeneratorInfo = z.object({
  version: z.string(),
  /** nauvis first; on 2.x with Space Age also vulcanus, gleba, fulgora, aquilo (and planets of mods). */
  planets: z.array(z.object({ name: z.string(), controls: z.array(z.string()) })),
  presets: z.array(WorldPreset),
  /** The installed game's example files (comments left out): the defaults of the form. */
  map_gen_settings: JsonObject,
  map_settings: JsonObject,
  /** "game": presets and planets come from the game's data dump; "examples": only the example files were read. */
  source: z.enum(["game", "examples"]),
  /** With "examples": why the game was not asked, or could not answer, in words for the page. */
  examples_reason: z.string().optional(),
});
export type GeneratorInfo = z.infer<typeof GeneratorInfo>;

/**
 * GET /api/world/scenarios: a name to start with (--start-server-load-scenario) or to make a save of
 * (POST /api/world/scenarios/save, --scenario2map), and where it comes from.
 */
export const Scenario = z.object({
  /** "my-scenario" (the user's scenarios folder), or "mod-name/scenario" for a mod's, "base/freeplay" for the game's. */
  name: z.string(),
  source: z.string(),
});
export type Scenario = z.infer<typeof Scenario>;

/** Settings as the form sends them: either part may be left out (the game's defaults). */
const SettingsBody = z.object({
  map_gen_settings: JsonObject.optional(),
  map_settings: JsonObject.optional(),
});

export const worldRoutes = {
  "GET /api/world/generator": {
    summary: "What the world generator offers: presets, planets and the default settings",
    role: "viewer",
    answer: GeneratorInfo,
  },
  "POST /api/world/preview": {
    summary: "A map preview rendered by the game (PNG)",
    role: "operator",
    requiresStopped: "a map preview",
    body: z.object({
      settings: SettingsBody.optional(),
      /** nauvis unless asked. */
      planet: z.string().optional(),
      /** Pixels, 64 to 1024 (512 unless asked). */
      size: z.number().optional(),
    }),
    answer: file("image/png"),
  },
  "POST /api/world/create": {
    summary: "Create a new map as a save with these settings",
    role: "operator",
    requiresStopped: "creating a world",
    body: z.object({ name: z.string(), settings: SettingsBody.optional() }),
    answer: Message,
  },
  "GET /api/world/scenarios": {
    summary: "The scenarios the game can start",
    role: "viewer",
    answer: z.array(Scenario),
  },
  "POST /api/world/scenarios/start": {
    summary: "Start the game on a new map of a scenario",
    role: "operator",
    body: StartBody.pick({ bindip: true, port: true }).extend({ name: z.string() }),
    answer: Message,
    status: [200, 202],
  },
  "POST /api/world/scenarios/save": {
    summary: "Make a save of a scenario's map (the game's --scenario2map)",
    role: "operator",
    requiresStopped: "creating a save from a scenario",
    body: z.object({
      name: z.string(),
      /** The save's name; the scenario's unless given. */
      save: z.string().optional(),
      overwrite: z.boolean().optional(),
    }),
    answer: Message,
  },
  "POST /api/world/exchange-string/decode": {
    summary: "The settings of a map exchange string",
    role: "operator",
    body: z.object({ string: z.string({ error: PANEL_MSG.exchangeStringMissing }) }),
    answer: ExchangeStringData,
  },
  "POST /api/world/exchange-string/encode": {
    summary: "A map exchange string of these settings (left_out: what a string cannot hold)",
    role: "operator",
    body: z.object({
      version: z.string().optional(),
      map_gen_settings: JsonObject.optional(),
      map_settings: JsonObject.optional(),
    }),
    answer: z.object({ string: z.string(), left_out: z.array(z.string()).optional() }),
  },
} satisfies Routes;
