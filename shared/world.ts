// The world generator and map exchange strings as the API carries them.

import type { WorldPreset, WorldSettings } from "./contract/world.ts";

export type {
  ExchangeStringData,
  GeneratorInfo,
  Scenario,
  WorldPreset,
  WorldSettings,
} from "./contract/world.ts";

/** Merges a preset into settings the way the game applies one: its values over the defaults. */
export function applyPreset(base: WorldSettings, preset: WorldPreset | undefined): WorldSettings {
  const merge = (a: unknown, b: unknown): unknown => {
    if (
      typeof a !== "object" || a === null || Array.isArray(a) || typeof b !== "object" || b === null ||
      Array.isArray(b)
    ) return b;
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
