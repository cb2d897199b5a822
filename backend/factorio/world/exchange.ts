// Map exchange strings: ">>>" + base64 of a zlib stream + "<<<". Inside: the game version (4 x u16), one
// byte (0 in every string seen), the map generator settings, the map settings, and a CRC-32 of all the bytes
// before it. The field layout per version follows the public description of the format (Clusterio's reader,
// packages/lib/src/factorio/exchange_string.ts); this is our own code, checked byte for byte against strings
// the game produced (tests/fixtures/exchange-strings). The JSON keys are those of the game's
// map-gen-settings.json and map-settings.json, so a decoded string can be handed to --create as is.

import { deflateSync, inflateSync } from "node:zlib";
import {
  array,
  bool,
  dict,
  ExchangeError,
  f32,
  f64,
  type Fields,
  i16,
  i32,
  oneOf,
  opt,
  position,
  Reader,
  str,
  struct,
  u32,
  u8,
  Writer,
} from "./binary.ts";

export { ExchangeError };

const atLeast = (v: number[], major: number, minor: number, patch = 0) =>
  v[0] !== major ? v[0] > major : v[1] !== minor ? v[1] > minor : v[2] >= patch;
const v2 = (v: number[]) => v[0] >= 2;
const v21 = (v: number[]) => atLeast(v, 2, 1);

const fsr = struct([["frequency", f32], ["size", f32], ["richness", f32]]);
const autoplaceSetting = struct([["treat_missing_as_default", bool], ["settings", dict(fsr)]]);
const boundingBox = struct([["left_top", position], ["right_bottom", position], [
  "orientation",
  struct([["x", i16], ["y", i16]]),
]]);
const cliffSettings = struct((v): Fields => [
  ["name", str],
  ...(v2(v) ? [["control", str]] as Fields : []),
  ["cliff_elevation_0", f32],
  ["cliff_elevation_interval", f32],
  ["richness", f32],
  ...(v2(v) ? [["cliff_smoothing", f32]] as Fields : []),
]);
const territorySettings = struct([
  ["units", array(str)],
  ["territory_index_expression", str],
  ["territory_variation_expression", str],
  ["minimum_territory_size", u32],
]);

const mapGenSettings = struct((v): Fields => [
  ...(v2(v) ? [] : [["terrain_segmentation", f32], ["water", f32]] as Fields),
  ["autoplace_controls", dict(fsr)],
  ["autoplace_settings", dict(autoplaceSetting)],
  ["default_enable_all_autoplace_controls", bool],
  ["seed", u32],
  ["width", u32],
  ["height", u32],
  ["area_to_generate_at_start", boundingBox],
  ["starting_area", f32],
  ["peaceful_mode", bool],
  ...(v2(v) ? [["no_enemies_mode", bool]] as Fields : []),
  ["starting_points", array(position)],
  ["property_expression_names", dict(str)],
  ["cliff_settings", cliffSettings],
  ...(v2(v) ? [["territory_settings", opt(territorySettings)]] as Fields : []),
]);

/** Fields that are all optional doubles, in order. */
const doubles = (names: string[]): Fields => names.map((n) => [n, opt(f64)]);

const pollution = struct([
  ["enabled", opt(bool)],
  ...doubles([
    "diffusion_ratio",
    "min_to_diffuse",
    "ageing",
    "expected_max_per_chunk",
    "min_to_show_per_chunk",
    "min_pollution_to_damage_trees",
    "pollution_with_max_forest_damage",
    "pollution_per_tree_damage",
    "pollution_restored_per_tree_damage",
    "max_pollution_to_restore_trees",
    "enemy_attack_pollution_consumption_modifier",
  ]),
]);
const steeringValue = struct([...doubles(["radius", "separation_factor", "separation_force"]), [
  "force_unit_fuzzy_goto_behavior",
  opt(bool),
]]);
const steering = struct([["default", steeringValue], ["moving", steeringValue]]);
const enemyEvolution = struct([
  ["enabled", opt(bool)],
  ...doubles(["time_factor", "destroy_factor", "pollution_factor"]),
]);
const enemyExpansion = struct((v): Fields => [
  ["enabled", opt(bool)],
  ["max_expansion_distance", opt(u32)],
  ...(v21(v) ? [["min_expansion_distance", opt(u32)]] as Fields : []),
  ["friendly_base_influence_radius", opt(u32)],
  ["enemy_building_influence_radius", opt(u32)],
  ...doubles([
    "building_coefficient",
    "other_base_coefficient",
    "neighbouring_chunk_coefficient",
    "neighbouring_base_chunk_coefficient",
    "max_colliding_tiles_coefficient",
  ]),
  ["settler_group_min_size", opt(u32)],
  ["settler_group_max_size", opt(u32)],
  ...(v21(v) ? [["evolution_group_size_factor", opt(f64)]] as Fields : []),
  ["min_expansion_cooldown", opt(u32)],
  ["max_expansion_cooldown", opt(u32)],
  ...(atLeast(v, 2, 1, 13) ? [["build_base_unit_dispatch_cooldown", opt(u32)]] as Fields : []),
]);
const unitGroup = struct([
  ["min_group_gathering_time", opt(u32)],
  ["max_group_gathering_time", opt(u32)],
  ["max_wait_time_for_late_members", opt(u32)],
  ...doubles([
    "max_group_radius",
    "min_group_radius",
    "max_member_speedup_when_behind",
    "max_member_slowdown_when_ahead",
    "max_group_slowdown_factor",
    "max_group_member_fallback_factor",
    "member_disown_distance",
  ]),
  ["tick_tolerance_when_member_arrives", opt(u32)],
  ["max_gathering_unit_groups", opt(u32)],
  ["max_unit_group_size", opt(u32)],
]);
const pathFinder = struct([
  ["fwd2bwd_ratio", opt(i32)],
  ["goal_pressure_ratio", opt(f64)],
  ["use_path_cache", opt(bool)],
  ["max_steps_worked_per_tick", opt(f64)],
  ["max_work_done_per_tick", opt(u32)],
  ["short_cache_size", opt(u32)],
  ["long_cache_size", opt(u32)],
  ["short_cache_min_cacheable_distance", opt(f64)],
  ["short_cache_min_algo_steps_to_cache", opt(u32)],
  ["long_cache_min_cacheable_distance", opt(f64)],
  ["cache_max_connect_to_cache_steps_multiplier", opt(u32)],
  ...doubles([
    "cache_accept_path_start_distance_ratio",
    "cache_accept_path_end_distance_ratio",
    "negative_cache_accept_path_start_distance_ratio",
    "negative_cache_accept_path_end_distance_ratio",
    "cache_path_start_distance_rating_multiplier",
    "cache_path_end_distance_rating_multiplier",
    "stale_enemy_with_same_destination_collision_penalty",
    "ignore_moving_enemy_collision_distance",
    "enemy_with_different_destination_collision_penalty",
    "general_entity_collision_penalty",
    "general_entity_subsequent_collision_penalty",
    "extended_collision_penalty",
  ]),
  ["max_clients_to_accept_any_new_request", opt(u32)],
  ["max_clients_to_accept_short_new_request", opt(u32)],
  ["direct_distance_to_consider_short_request", opt(u32)],
  ["short_request_max_steps", opt(u32)],
  ["short_request_ratio", opt(f64)],
  ["min_steps_to_check_path_find_termination", opt(u32)],
  ["start_to_goal_cost_multiplier_to_terminate_path_find", opt(f64)],
  ["overload_levels", opt(array(u32))],
  ["overload_multipliers", opt(array(f64))],
  ["negative_path_cache_delay_interval", opt(u32)],
]);
const difficulty = struct((v): Fields =>
  v2(v) ? [["technology_price_multiplier", f64], ["spoil_time_modifier", f64]] : [
    ["recipe_difficulty", u8],
    ["technology_difficulty", u8],
    ["technology_price_multiplier", f64],
    ["research_queue_setting", oneOf(["always", "after-victory", "never"])],
  ]
);
const asteroids = struct([["spawning_rate", opt(f64)], ["max_ray_portals_expanded_per_tick", opt(u32)]]);

const mapSettings = struct((v): Fields => [
  ["pollution", pollution],
  ...(v21(v) ? [] : [["steering", steering]] as Fields),
  ["enemy_evolution", enemyEvolution],
  ["enemy_expansion", enemyExpansion],
  ["unit_group", unitGroup],
  ["path_finder", pathFinder],
  ["max_failed_behavior_count", u32],
  ["difficulty_settings", difficulty],
  ...(v2(v) ? [["asteroids", asteroids]] as Fields : []),
]);

export interface ExchangeData {
  /** The game version that made the string, "x.y.z.b". Encoding uses it to pick the layout. */
  version: string;
  map_gen_settings: Record<string, unknown>;
  map_settings: Record<string, unknown>;
}

/** Longest inflated payload accepted: real ones are about 1 KiB. */
const MAX_BYTES = 256 * 1024;
const MAX_STRING = 64 * 1024;

let crcTable: Uint32Array | null = null;
export function crc32(b: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function supported(v: number[]): boolean {
  return (v[0] === 1 && v[1] === 1) || v[0] === 2;
}

/** The bytes inside a string: checked base64, inflated with a bound. */
export function exchangeBytes(text: string): Uint8Array {
  const s = text.replace(/\s+/g, "");
  if (s.length > MAX_STRING) throw new ExchangeError("the text is far too long for a map exchange string");
  const m = /^>>>([0-9A-Za-z+/]+={0,2})<<<$/.exec(s);
  if (!m) throw new ExchangeError('a map exchange string starts with ">>>" and ends with "<<<"');
  let raw: Uint8Array;
  try {
    raw = new Uint8Array(inflateSync(Buffer.from(m[1], "base64"), { maxOutputLength: MAX_BYTES }));
  } catch (e) {
    const code = (e as { code?: string }).code ?? "";
    if (code === "ERR_BUFFER_TOO_LARGE") {
      throw new ExchangeError("the string holds far more than map settings");
    }
    throw new ExchangeError("the string is damaged (it does not unpack)");
  }
  return raw;
}

export function decodeExchangeString(text: string): ExchangeData {
  const raw = exchangeBytes(text);
  if (raw.length < 13) throw new ExchangeError("the settings end too early");
  const body = raw.subarray(0, raw.length - 4);
  const stored = new DataView(raw.buffer, raw.byteOffset + raw.length - 4, 4).getUint32(0, true);
  if (crc32(body) !== stored) throw new ExchangeError("the string is damaged (its checksum does not match)");
  const probe = new Reader(body, []);
  const version = [probe.u16(), probe.u16(), probe.u16(), probe.u16()];
  if (!supported(version)) {
    throw new ExchangeError(
      `the string is from Factorio ${version.slice(0, 3).join(".")}; strings of 1.1 and 2.x can be read`,
    );
  }
  const r = new Reader(body, version);
  r.pos = 8;
  const flag = r.u8();
  if (flag !== 0) throw new ExchangeError(`the byte after the version is ${flag}, not 0`);
  const map_gen_settings = mapGenSettings.read(r) as Record<string, unknown>;
  const map_settings = mapSettings.read(r) as Record<string, unknown>;
  if (r.left !== 0) throw new ExchangeError(`${r.left} bytes follow the map settings`);
  return { version: version.join("."), map_gen_settings, map_settings };
}

/**
 * The string for `data`. `lenient`: keys a string cannot carry (map-settings.json has more than a string
 * holds) are left out and listed in `leftOut`, instead of refused.
 */
export function encodeExchangeString(
  data: { version: string; map_gen_settings: unknown; map_settings: unknown },
): string {
  return encodeExchange(data, false).string;
}

export function encodeExchange(
  data: { version: string; map_gen_settings: unknown; map_settings: unknown },
  lenient: boolean,
): { string: string; leftOut: string[] } {
  const version = /^\d+\.\d+\.\d+(\.\d+)?$/.test(data.version) ? data.version.split(".").map(Number) : null;
  if (!version || version.some((n) => n > 65535)) {
    throw new ExchangeError("version must be a game version such as 2.0.72");
  }
  while (version.length < 4) version.push(0);
  if (!supported(version)) {
    throw new ExchangeError(`strings can be written for Factorio 1.1 and 2.x, not ${data.version}`);
  }
  const w = new Writer(version, lenient);
  for (const n of version) w.u16(n);
  w.u8(0);
  mapGenSettings.write(w, data.map_gen_settings, "map_gen_settings");
  mapSettings.write(w, data.map_settings, "map_settings");
  const body = w.result();
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, crc32(body), true);
  return {
    string: `>>>${Buffer.from(deflateSync(out, { level: 9 })).toString("base64")}<<<`,
    leftOut: w.leftOut,
  };
}
