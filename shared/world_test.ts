import assert from "node:assert/strict";
import { applyPreset, type WorldPreset } from "./world.ts";

Deno.test("applyPreset: the preset's values over the defaults, nested, without touching the defaults", () => {
  const base = {
    map_gen_settings: {
      seed: null,
      starting_area: 1,
      autoplace_controls: {
        "iron-ore": { frequency: 1, size: 1, richness: 1 },
        coal: { frequency: 1, size: 1, richness: 1 },
      },
    },
    map_settings: { enemy_expansion: { enabled: true, max_expansion_distance: 7 } },
  };
  const rail: WorldPreset = {
    name: "rail-world",
    order: "f",
    default: false,
    basic_settings: { autoplace_controls: { "iron-ore": { frequency: 0.33, size: 3 } } },
    advanced_settings: { enemy_expansion: { enabled: false } },
  };
  const out = applyPreset(base, rail);
  assert.deepEqual(out.map_gen_settings.autoplace_controls, {
    "iron-ore": { frequency: 0.33, size: 3, richness: 1 },
    coal: { frequency: 1, size: 1, richness: 1 },
  });
  assert.deepEqual(out.map_settings.enemy_expansion, { enabled: false, max_expansion_distance: 7 });
  assert.equal(base.map_gen_settings.autoplace_controls["iron-ore"].frequency, 1, "defaults untouched");
  assert.deepEqual(applyPreset(base, undefined), base);
});
