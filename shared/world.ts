// The world generator and map exchange strings as the API carries them.

/** The two settings files of a new world, in the shapes of the game's example files. */
export interface WorldSettings {
  map_gen_settings: Record<string, unknown>;
  map_settings: Record<string, unknown>;
}

/** POST /api/world/exchange-string/decode answers this; encode takes it ("version" optional: the game's). */
export interface ExchangeStringData extends WorldSettings {
  /** The game version that made the string, "x.y.z.b". */
  version: string;
}

export interface WorldPreset {
  name: string;
  order: string;
  default: boolean;
  /** What the preset changes, in the shape of map-gen-settings (basic) and map-settings (advanced). */
  basic_settings: Record<string, unknown>;
  advanced_settings: Record<string, unknown>;
}

/** GET /api/world/generator. */
export interface GeneratorInfo {
  version: string;
  /** nauvis first; on 2.x with Space Age also vulcanus, gleba, fulgora, aquilo (and planets of mods). */
  planets: { name: string; controls: string[] }[];
  presets: WorldPreset[];
  /** The installed game's example files (comments left out): the defaults of the form. */
  map_gen_settings: Record<string, unknown>;
  map_settings: Record<string, unknown>;
  /** "game": presets and planets come from the game's data dump; "examples": only the example files were read. */
  source: "game" | "examples";
  /** With "examples": why the game was not asked, or could not answer, in words for the page. */
  examples_reason?: string;
}

/**
 * GET /api/world/scenarios: a name to start with (--start-server-load-scenario) or to make a save of
 * (POST /api/world/scenarios/save, --scenario2map), and where it comes from.
 */
export interface Scenario {
  /** "my-scenario" (the user's scenarios folder), or "mod-name/scenario" for a mod's, "base/freeplay" for the game's. */
  name: string;
  source: string;
}

/** Merges a preset into settings the way the game applies one: its values over the defaults. */
export function applyPreset(base: WorldSettings, preset: WorldPreset | undefined): WorldSettings {
  const merge = (a: unknown, b: unknown): unknown => {
    if (typeof a !== "object" || a === null || Array.isArray(a) || typeof b !== "object" || b === null || Array.isArray(b)) return b;
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
    return out;
  };
  const copy = structuredClone(base);
  if (!preset) return copy;
  return {
    map_gen_settings: merge(copy.map_gen_settings, preset.basic_settings) as Record<string, unknown>,
    map_settings: merge(copy.map_settings, preset.advanced_settings) as Record<string, unknown>,
  };
}
