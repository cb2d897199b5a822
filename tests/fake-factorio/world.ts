// New worlds in the simulator, as the real binary offers them on its command line:
//   --dump-data                        writes <write-data>/script-output/data-raw-dump.json: the prototypes a
//                                      panel needs for a world generator (map-gen-presets, planet with their
//                                      autoplace controls, autoplace-control), for the enabled mods
//   --generate-map-preview PATH        writes a PNG preview of the map, then exits; with
//     --map-preview-size N (default 1024), --map-preview-planet P (2.x; default nauvis),
//     --map-gen-settings FILE, --map-settings FILE, --map-gen-seed SEED
//   --map-gen-settings / --map-settings / --map-gen-seed / --preset with --create: the settings are checked
//                                      like the game does (unreadable JSON, an unknown preset or planet fail)
//                                      and written into the save's state, so tests can see what the game got
// The preset and planet data below are the simulator's own, in the shape of the game's prototypes: the
// preset names and the planets' control names are the game's, the numbers are plausible, not copied.

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { crc32 } from "../../backend/factorio/world/exchange.ts";
import type { HeaderMod } from "./savefile.ts";
import { ZipReader } from "../../backend/lib/zip.ts";

const NAUVIS_2X = [
  "coal",
  "stone",
  "copper-ore",
  "iron-ore",
  "uranium-ore",
  "crude-oil",
  "water",
  "trees",
  "enemy-base",
  "rocks",
  "starting_area_moisture",
  "nauvis_cliff",
];
const NAUVIS_1X = [
  "coal",
  "stone",
  "copper-ore",
  "iron-ore",
  "uranium-ore",
  "crude-oil",
  "trees",
  "enemy-base",
];
const SPACE_AGE_PLANETS: Record<string, string[]> = {
  vulcanus: ["vulcanus_coal", "sulfuric_acid_geyser", "tungsten_ore", "calcite", "vulcanus_volcanism"],
  gleba: ["gleba_stone", "gleba_water", "gleba_plants", "gleba_enemy_base", "gleba_cliff"],
  fulgora: ["scrap", "fulgora_islands", "fulgora_cliff"],
  aquilo: ["lithium_brine", "fluorine_vent", "aquilo_crude_oil"],
};
const RESOURCES = new Set([
  "coal",
  "stone",
  "copper-ore",
  "iron-ore",
  "uranium-ore",
  "crude-oil",
  "vulcanus_coal",
  "sulfuric_acid_geyser",
  "tungsten_ore",
  "calcite",
  "gleba_stone",
  "scrap",
  "lithium_brine",
  "fluorine_vent",
  "aquilo_crude_oil",
]);

/** The planets a game with these mods has, each with its autoplace controls. */
export function planets(version: string, mods: HeaderMod[]): Record<string, string[]> {
  const v1 = version.startsWith("1.");
  const out: Record<string, string[]> = { nauvis: v1 ? NAUVIS_1X : NAUVIS_2X };
  if (!v1 && mods.some((m) => m.name === "space-age")) Object.assign(out, SPACE_AGE_PLANETS);
  return out;
}

function presets(version: string): Record<string, unknown> {
  const v1 = version.startsWith("1.");
  const ores = ["iron-ore", "copper-ore", "stone", "coal", "uranium-ore", "crude-oil"];
  const each = (s: Record<string, number>) => Object.fromEntries(ores.map((o) => [o, s]));
  const deathEnemies = {
    enemy_evolution: { time_factor: 0.00002, destroy_factor: 0.002, pollution_factor: 0.0000012 },
    enemy_expansion: { min_expansion_cooldown: 3600, max_expansion_cooldown: 36000 },
  };
  const marathon = v1
    ? { difficulty_settings: { recipe_difficulty: 1, technology_price_multiplier: 4 } }
    : { difficulty_settings: { technology_price_multiplier: 4 } };
  return {
    type: "map-gen-presets",
    name: "default",
    default: { default: true, order: "a" },
    "rich-resources": { order: "b", basic_settings: { autoplace_controls: each({ richness: 2 }) } },
    marathon: { order: "c", advanced_settings: marathon },
    "death-world": {
      order: "d",
      basic_settings: {
        autoplace_controls: { "enemy-base": { frequency: 2, size: 2 } },
        starting_area: 0.75,
      },
      advanced_settings: deathEnemies,
    },
    "death-world-marathon": {
      order: "e",
      basic_settings: {
        autoplace_controls: { "enemy-base": { frequency: 2, size: 2 } },
        starting_area: 0.75,
      },
      advanced_settings: { ...deathEnemies, ...marathon },
    },
    "rail-world": {
      order: "f",
      basic_settings: { autoplace_controls: each({ frequency: 0.33, size: 3 }) },
      advanced_settings: { enemy_expansion: { enabled: false } },
    },
    "ribbon-world": {
      order: "g",
      basic_settings: {
        height: 128,
        autoplace_controls: v1 ? {} : { water: { frequency: 4, size: 0.25 } },
        starting_area: 3,
      },
    },
    island: { order: "h", basic_settings: { property_expression_names: { elevation: "elevation_island" } } },
  };
}

/** What --dump-data writes: only the prototype types a world generator reads. */
export function dataRawDump(version: string, mods: HeaderMod[]): Record<string, unknown> {
  const p = planets(version, mods);
  const controls: Record<string, unknown> = {};
  for (const names of Object.values(p)) {
    for (const name of names) {
      controls[name] = {
        type: "autoplace-control",
        name,
        category: RESOURCES.has(name) ? "resource" : name.includes("enemy") ? "enemy" : "terrain",
        richness: RESOURCES.has(name),
      };
    }
  }
  const dump: Record<string, unknown> = {
    "map-gen-presets": { default: presets(version) },
    "autoplace-control": controls,
  };
  if (!version.startsWith("1.")) {
    dump.planet = Object.fromEntries(
      Object.entries(p).map((
        [name, names],
      ) => [name, {
        type: "planet",
        name,
        map_gen_settings: { autoplace_controls: Object.fromEntries(names.map((n) => [n, {}])) },
      }]),
    );
  }
  return dump;
}

export function writeDataDump(writeData: string, version: string, mods: HeaderMod[]): string {
  const dir = join(writeData, "script-output");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "data-raw-dump.json");
  writeFileSync(path, JSON.stringify(dataRawDump(version, mods), null, 2));
  return path;
}

/**
 * Where a scenario "[mod/]name" is, looked up as the game's --help says: without a mod, only in the top-level
 * <write-data>/scenarios directory; with one (an enabled mod), in that mod: a built-in mod's
 * data/<mod>/scenarios/<name>, an unpacked mod folder's scenarios/<name>, or a mod zip's
 * <top>/scenarios/<name>/. The game's own scenarios are therefore "base/freeplay", never "freeplay".
 */
export async function findScenario(
  name: string,
  paths: { readData: string; writeData: string },
  mods: HeaderMod[],
  modDir: string,
): Promise<string | null> {
  const slash = name.indexOf("/");
  if (slash < 0) {
    const dir = join(paths.writeData, "scenarios", name);
    return existsSync(dir) && statSync(dir).isDirectory() ? dir : null;
  }
  const mod = name.slice(0, slash);
  const scenario = name.slice(slash + 1);
  if (scenario === "" || scenario.includes("/") || !mods.some((m) => m.name === mod)) return null;
  const builtIn = join(paths.readData, mod, "scenarios", scenario);
  if (existsSync(builtIn)) return builtIn;
  if (!existsSync(modDir)) return null;
  for (const file of readdirSync(modDir).sort()) {
    if (file !== mod && !file.startsWith(`${mod}_`)) continue;
    const path = join(modDir, file);
    if (statSync(path).isDirectory()) {
      if (existsSync(join(path, "scenarios", scenario))) return join(path, "scenarios", scenario);
      continue;
    }
    if (!file.toLowerCase().endsWith(".zip")) continue;
    const zip = await ZipReader.open(path);
    try {
      const inZip = (entry: string) => {
        const parts = entry.split("/");
        return parts.length > 3 && parts[1] === "scenarios" && parts[2] === scenario;
      };
      if (zip.entries.some((e) => inZip(e.name))) return `${path}:scenarios/${scenario}`;
    } finally {
      await zip.close();
    }
  }
  return null;
}

export class SettingsError extends Error {}

/** A --map-gen-settings / --map-settings file, read as the game does: JSON object or an error. */
export function readSettingsFile(path: string | undefined, what: string): Record<string, unknown> | null {
  if (path === undefined) return null;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new SettingsError(`Failed to load ${what} from ${path}: ${(e as Error).message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new SettingsError(`${what} in ${path} is not a JSON object`);
  }
  return data as Record<string, unknown>;
}

export function checkPreset(name: string | undefined, version: string): void {
  if (name !== undefined && !(name in presets(version))) {
    throw new SettingsError(`Unknown map gen preset: ${name}`);
  }
}

// ---- PNG preview ----

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An RGB PNG of `size` x `size` pixels from a pixel function. */
export function png(size: number, pixel: (x: number, y: number) => [number, number, number]): Uint8Array {
  const raw = new Uint8Array(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x++) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, size);
  v.setUint32(4, size);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

const COLORS: Record<string, [number, number, number]> = {
  "iron-ore": [104, 132, 146],
  "copper-ore": [203, 97, 53],
  coal: [20, 20, 20],
  stone: [176, 150, 106],
  "uranium-ore": [0, 180, 0],
  "crude-oil": [194, 56, 196],
  "enemy-base": [200, 16, 16],
};

/**
 * A picture that follows the settings: land, water where the water control (or 1.1 "water") says, and a
 * patch of each control's colour, as many as its frequency and as large as its size, from the seed.
 */
export function renderPreview(
  size: number,
  planet: string,
  seed: number,
  gen: Record<string, unknown>,
): Uint8Array {
  const controls = (gen.autoplace_controls ?? {}) as Record<
    string,
    { frequency?: number; size?: number; richness?: number }
  >;
  const land: [number, number, number] = planet === "vulcanus"
    ? [70, 40, 30]
    : planet === "gleba"
    ? [90, 110, 60]
    : planet === "fulgora"
    ? [120, 90, 110]
    : planet === "aquilo"
    ? [200, 210, 230]
    : [60, 80, 40];
  const random = rng(seed ^ [...planet].reduce((h, c) => h * 31 + c.charCodeAt(0), 7));
  const blobs: { x: number; y: number; r: number; color: [number, number, number] }[] = [];
  for (const [name, c] of Object.entries(controls)) {
    const count = Math.round(4 * (c.frequency ?? 1));
    const radius = size * 0.04 * (c.size ?? 1);
    const base = COLORS[name] ??
      (name === "water" ? [40, 70, 150] : [90 + (name.length * 13) % 120, 90 + (name.length * 29) % 120, 90]);
    const k = Math.min(1.5, 0.6 + 0.4 * (c.richness ?? 1));
    const color = base.map((v) => Math.min(255, Math.round(v * k))) as [number, number, number];
    for (let i = 0; i < count && radius > 0; i++) {
      blobs.push({ x: random() * size, y: random() * size, r: radius * (0.5 + random()), color });
    }
  }
  return png(size, (x, y) => {
    for (let i = blobs.length - 1; i >= 0; i--) {
      const b = blobs[i];
      if ((x - b.x) ** 2 + (y - b.y) ** 2 < b.r ** 2) return b.color;
    }
    return land;
  });
}

export function writePreview(
  path: string,
  size: number,
  planet: string,
  seed: number,
  gen: Record<string, unknown>,
): void {
  if (!existsSync(join(path, ".."))) mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, renderPreview(size, planet, seed, gen));
}
