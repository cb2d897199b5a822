// Settings from a form or the game's example files leave out what a map exchange string always holds
// (autoplace_settings, the area generated at start, ...). These are filled in with the values the game
// itself writes for a default map (as seen in every string it made), so any settings can be copied out
// as a string. Values that are there are kept as they are.

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The game's default for "unlimited" width and height inside a string. */
export const UNLIMITED = 2000000;

function withDefaults(v: unknown, defaults: Record<string, unknown>): Record<string, unknown> {
  return { ...defaults, ...(isObject(v) ? v : {}) };
}

export function completeForExchange(
  version: string,
  gen: unknown,
  ms: unknown,
): { map_gen_settings: Record<string, unknown>; map_settings: Record<string, unknown> } {
  const v2 = Number(version.split(".")[0]) >= 2;
  const v21 = v2 && (Number(version.split(".")[0]) > 2 || Number(version.split(".")[1]) >= 1);
  const g = withDefaults(gen, {
    ...(v2 ? {} : { terrain_segmentation: 1, water: 1 }),
    autoplace_controls: {},
    autoplace_settings: {},
    default_enable_all_autoplace_controls: true,
    seed: null,
    width: UNLIMITED,
    height: UNLIMITED,
    area_to_generate_at_start: {
      left_top: { x: -224, y: -224 },
      right_bottom: { x: 224, y: 224 },
      orientation: { x: 0, y: -32767 },
    },
    starting_area: 1,
    peaceful_mode: false,
    ...(v2 ? { no_enemies_mode: false } : {}),
    starting_points: [{ x: 0, y: 0 }],
    property_expression_names: {},
    cliff_settings: {},
  });
  if (g.seed === null || g.seed === undefined) g.seed = Math.floor(Math.random() * 0x100000000);
  for (const k of ["width", "height"]) if (g[k] === 0) g[k] = UNLIMITED;
  g.autoplace_controls = Object.fromEntries(
    Object.entries(isObject(g.autoplace_controls) ? g.autoplace_controls : {}).map((
      [name, c],
    ) => [name, withDefaults(c, { frequency: 1, size: 1, richness: 1 })]),
  );
  g.cliff_settings = withDefaults(g.cliff_settings, {
    name: "cliff",
    ...(v2 ? { control: "" } : {}),
    cliff_elevation_0: 10,
    cliff_elevation_interval: 40,
    richness: 1,
    ...(v2 ? { cliff_smoothing: 1 } : {}),
  });
  // The property expressions of a string are text; the example files write numbers as text too.
  g.property_expression_names = Object.fromEntries(
    Object.entries(isObject(g.property_expression_names) ? g.property_expression_names : {}).map((
      [k, x],
    ) => [k, String(x)]),
  );

  const m = withDefaults(ms, { max_failed_behavior_count: 3 });
  for (
    const k of [
      "pollution",
      "enemy_evolution",
      "enemy_expansion",
      "unit_group",
      "path_finder",
      ...(v2 ? ["asteroids"] : []),
    ]
  ) m[k] = withDefaults(m[k], {});
  if (!v21) m.steering = withDefaults(m.steering, { default: {}, moving: {} });
  else delete m.steering;
  m.difficulty_settings = withDefaults(
    m.difficulty_settings,
    v2 ? { technology_price_multiplier: 1, spoil_time_modifier: 1 } : {
      recipe_difficulty: 0,
      technology_difficulty: 0,
      technology_price_multiplier: 1,
      research_queue_setting: "after-victory",
    },
  );
  return { map_gen_settings: g, map_settings: m };
}
