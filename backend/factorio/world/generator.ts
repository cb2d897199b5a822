// The world generator: what the installed game offers (its example settings files, and from its own data
// dump the presets and each planet's autoplace controls), map previews rendered by the game, and the
// settings files a new world is created with. Nothing here is a list of the game's content: it is read
// from the installed version, so a new game version or a mod that adds a planet or a preset shows up.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "../../lib/log.ts";
import type { FactorioPaths } from "../layout.ts";
import { runGameOnce } from "../saves/service.ts";
import { HttpError, Invalid } from "../../lib/errors.ts";
import { writeFileAtomic } from "../../lib/fsutil.ts";
import type { GeneratorInfo, WorldPreset, WorldSettings } from "../../../shared/world.ts";

/** Keys of MapGenSettings the game reads from --map-gen-settings (Lua API concept MapGenSettings). */
const MAP_GEN_KEYS = new Set([
  "terrain_segmentation",
  "water",
  "autoplace_controls",
  "autoplace_settings",
  "default_enable_all_autoplace_controls",
  "seed",
  "width",
  "height",
  "starting_area",
  "peaceful_mode",
  "no_enemies_mode",
  "starting_points",
  "property_expression_names",
  "cliff_settings",
  "territory_settings",
]);

/** The example files without their "_comment" keys. */
function readExample(path: string): Record<string, unknown> {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (typeof v !== "object" || v === null) return v;
    return Object.fromEntries(
      Object.entries(v).filter(([k]) => !k.startsWith("_")).map(([k, x]) => [k, strip(x)]),
    );
  };
  try {
    return strip(JSON.parse(readFileSync(path, "utf8"))) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const MAX_CACHED_PREVIEWS = 200;

export interface RunResult {
  ok: boolean;
  output: string;
}

export interface GeneratorOptions {
  paths: FactorioPaths;
  dataDir: string;
  log: Logger;
  gameVersion: () => string | null;
  timeoutMs: number;
}

export class WorldGenerator {
  #dump: { key: string; data: Record<string, unknown> } | null = null;
  /** One game run at a time: two instances on one write-data directory would fight over its lock. */
  #runs: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: GeneratorOptions) {}

  get cacheDir(): string {
    return join(this.o.dataDir, "world-previews");
  }

  /** Runs the game once with `args` (not as a server), with a time limit; answers its exit and last lines. */
  runGame(args: string[]): Promise<RunResult> {
    const run = this.#runs.then(() => this.#runGame(args), () => this.#runGame(args));
    this.#runs = run.catch(() => {});
    return run;
  }

  async #runGame(args: string[]): Promise<RunResult> {
    let run;
    try {
      run = await runGameOnce(this.o.paths, args, this.o.timeoutMs);
    } catch (e) {
      const why = (e as Error).message;
      throw new HttpError(500, why.charAt(0).toUpperCase() + why.slice(1));
    }
    if (run.timedOut) {
      return {
        ok: false,
        output: `the game did not finish within ${Math.round(this.o.timeoutMs / 1000)} s\n${run.output}`,
      };
    }
    return { ok: run.status.success, output: run.output };
  }

  /** What identifies the game's content: its version and the mods it loads. */
  #contentKey(): string {
    const stamp = (p: string) => {
      try {
        const st = statSync(p);
        return `${st.size}:${st.mtimeMs}`;
      } catch {
        return "-";
      }
    };
    return [this.o.gameVersion() ?? "?", stamp(this.o.paths.modList), stamp(this.o.paths.mods)].join("|");
  }

  /**
   * The game's data dump (`--dump-data`, script-output/data-raw-dump.json) for the current game and mods,
   * made once and kept while they do not change. `mayRun`: the game directory is ours (the game is
   * stopped); otherwise only a dump made before is used.
   */
  async #dataDump(mayRun: boolean): Promise<Record<string, unknown> | null> {
    const key = this.#contentKey();
    if (this.#dump?.key === key) return this.#dump.data;
    if (!mayRun) return null;
    const r = await this.runGame(["--dump-data", "--mod-directory", this.o.paths.mods]);
    const path = join(this.o.paths.root, "script-output", "data-raw-dump.json");
    if (!r.ok || !existsSync(path)) {
      this.o.log.warn("The game's data dump failed", { output: r.output.slice(-500) });
      return null;
    }
    try {
      const data = JSON.parse(readFileSync(path, "utf8"));
      this.#dump = { key, data };
      return data;
    } catch {
      return null;
    }
  }

  async info(mayRunGame: boolean): Promise<GeneratorInfo> {
    const mapGen = readExample(join(this.o.paths.data, "map-gen-settings.example.json"));
    const mapSettings = readExample(join(this.o.paths.data, "map-settings.example.json"));
    const dump = await this.#dataDump(mayRunGame);
    const exampleControls = Object.keys((mapGen.autoplace_controls ?? {}) as object);
    let planets: GeneratorInfo["planets"] = [{ name: "nauvis", controls: exampleControls }];
    const presets: WorldPreset[] = [];
    if (dump) {
      const planetData = dump.planet as
        | Record<string, { map_gen_settings?: { autoplace_controls?: object } }>
        | undefined;
      if (planetData && Object.keys(planetData).length > 0) {
        planets = Object.entries(planetData).map(([name, p]) => ({
          name,
          controls: Object.keys(p.map_gen_settings?.autoplace_controls ?? {}),
        }));
        planets.sort((a, b) => (a.name === "nauvis" ? -1 : b.name === "nauvis" ? 1 : 0));
      } else {
        const controls = Object.keys((dump["autoplace-control"] ?? {}) as object);
        if (controls.length > 0) planets = [{ name: "nauvis", controls }];
      }
      for (
        const group of Object.values(
          (dump["map-gen-presets"] ?? {}) as Record<string, Record<string, unknown>>,
        )
      ) {
        for (const [name, p] of Object.entries(group)) {
          if (name === "type" || name === "name" || typeof p !== "object" || p === null) continue;
          const preset = p as Record<string, unknown>;
          presets.push({
            name,
            order: typeof preset.order === "string" ? preset.order : "",
            default: preset.default === true,
            basic_settings: (preset.basic_settings ?? {}) as Record<string, unknown>,
            advanced_settings: (preset.advanced_settings ?? {}) as Record<string, unknown>,
          });
        }
      }
      presets.sort((a, b) => a.order.localeCompare(b.order));
    }
    return {
      version: this.o.gameVersion() ?? "",
      planets,
      presets,
      map_gen_settings: mapGen,
      map_settings: mapSettings,
      source: dump ? "game" : "examples",
    };
  }

  /**
   * Writes the settings files for one game run into a fresh folder and answers the arguments that pass
   * them, and a cleanup. Only keys the game reads go into map-gen-settings.json.
   */
  settingsArgs(settings: WorldSettings): { args: string[]; cleanup: () => void } {
    const dir = join(this.o.dataDir, "world-settings", randomBytes(6).toString("hex"));
    mkdirSync(dir, { recursive: true });
    const gen = Object.fromEntries(
      Object.entries(settings.map_gen_settings).filter(([k]) => MAP_GEN_KEYS.has(k)),
    );
    const args: string[] = [];
    const genPath = join(dir, "map-gen-settings.json");
    writeFileSync(genPath, JSON.stringify(gen, null, 2));
    args.push("--map-gen-settings", genPath);
    if (Object.keys(settings.map_settings).length > 0) {
      const msPath = join(dir, "map-settings.json");
      writeFileSync(msPath, JSON.stringify(settings.map_settings, null, 2));
      args.push("--map-settings", msPath);
    }
    if (typeof gen.seed === "number") args.push("--map-gen-seed", String(gen.seed));
    return { args, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }

  /** Keeps the newest previews only: each is tens of KiB, and old settings are rarely asked again. */
  #pruneCache(): void {
    const files = readdirSync(this.cacheDir)
      .filter((f) => f.endsWith(".png") && !f.startsWith("."))
      .map((f) => {
        try {
          return { path: join(this.cacheDir, f), mtime: statSync(join(this.cacheDir, f)).mtimeMs };
        } catch {
          return { path: join(this.cacheDir, f), mtime: 0 }; // removed meanwhile
        }
      })
      .sort((a, b) => b.mtime - a.mtime);
    for (const f of files.slice(MAX_CACHED_PREVIEWS)) rmSync(f.path, { force: true });
  }

  /** A PNG of `planet` rendered by the game for these settings; the same settings answer from the cache. */
  async preview(settings: WorldSettings, planet: string, size: number): Promise<Uint8Array> {
    const key = createHash("sha256").update(JSON.stringify([this.#contentKey(), settings, planet, size]))
      .digest("hex").slice(0, 32);
    const cached = join(this.cacheDir, `${key}.png`);
    if (existsSync(cached)) return readFileSync(cached);
    mkdirSync(this.cacheDir, { recursive: true });
    const { args, cleanup } = this.settingsArgs(settings);
    const out = join(this.cacheDir, `.${key}.${randomBytes(4).toString("hex")}.png`);
    try {
      const planetArgs = (this.o.gameVersion() ?? "").startsWith("1.")
        ? []
        : ["--map-preview-planet", planet];
      const r = await this.runGame([
        "--generate-map-preview",
        out,
        "--map-preview-size",
        String(size),
        ...planetArgs,
        ...args,
        "--mod-directory",
        this.o.paths.mods,
      ]);
      if (!r.ok || !existsSync(out)) {
        throw new HttpError(
          500,
          `The game could not render a preview.${r.output ? `\nGame output:\n${r.output}` : ""}`,
        );
      }
      const png = readFileSync(out);
      writeFileAtomic(cached, png);
      this.#pruneCache();
      return png;
    } finally {
      cleanup();
      rmSync(out, { force: true });
    }
  }
}

/** Checks the body's `settings` (or the body itself) against the shapes of the game's settings files. */
export function parseWorldSettings(v: unknown): WorldSettings {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new Invalid('settings must be {"map_gen_settings": {...}, "map_settings": {...}}');
  }
  const o = v as Record<string, unknown>;
  const gen = o.map_gen_settings ?? {};
  const ms = o.map_settings ?? {};
  for (const [name, part] of [["map_gen_settings", gen], ["map_settings", ms]] as const) {
    if (typeof part !== "object" || part === null || Array.isArray(part)) {
      throw new Invalid(`${name} must be an object`);
    }
  }
  const g = gen as Record<string, unknown>;
  if (
    g.seed !== undefined && g.seed !== null &&
    (typeof g.seed !== "number" || !Number.isInteger(g.seed) || g.seed < 0 || g.seed > 0xffffffff)
  ) {
    throw new Invalid(
      "map_gen_settings.seed must be a whole number from 0 to 4294967295, or null for a random one",
    );
  }
  for (const k of ["width", "height"]) {
    const n = g[k];
    if (n !== undefined && (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 2000000)) {
      throw new Invalid(`map_gen_settings.${k} must be a whole number from 0 (unlimited) to 2000000`);
    }
  }
  const controls = g.autoplace_controls;
  if (controls !== undefined) {
    if (typeof controls !== "object" || controls === null || Array.isArray(controls)) {
      throw new Invalid("map_gen_settings.autoplace_controls must be an object");
    }
    for (const [name, c] of Object.entries(controls)) {
      if (typeof c !== "object" || c === null) {
        throw new Invalid(`autoplace control ${name} must be {frequency, size, richness}`);
      }
      for (const [k, x] of Object.entries(c)) {
        if (
          !["frequency", "size", "richness"].includes(k) || typeof x !== "number" || !Number.isFinite(x) ||
          x < 0 || x > 1000
        ) {
          throw new Invalid(`autoplace control ${name}: ${k} must be a number from 0 to 1000`);
        }
      }
    }
  }
  return { map_gen_settings: g, map_settings: ms as Record<string, unknown> };
}
