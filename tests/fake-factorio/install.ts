// Installs a simulated Factorio headless server as a real directory, laid out like the game's tarball:
//
//   <dir>/bin/x64/factorio            executable (a shell wrapper that runs tests/fake-factorio/main.ts);
//                                     bin/arm64/factorio for the native ARM64 build (2.1 and later)
//   <dir>/config-path.cfg
//   <dir>/config/config.ini
//   <dir>/data/base/info.json         and core/, plus space-age/ quality/ elevated-rails/ (2.0+), recycler/ (2.1+)
//   <dir>/data/server-settings.example.json, server-whitelist.example.json, map-gen-settings.example.json,
//                                     map-settings.example.json (the game's own files of that version)
//   <dir>/data/base/scenarios/        freeplay, pvp, wave-defense
//   <dir>/saves/  <dir>/mods/
//
// The simulated version is baked into the wrapper (FAKE_FACTORIO_VERSION), so a panel started with
// --factorio-dir <dir> meets the same game every time. Used by the tests and by `npm run demo`.

import { chmodSync, copyFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { type SaveState, writeSave } from "./savefile.ts";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");

export type SimulatedVersion = "1.1" | "2.0" | "2.1";

/** Full versions and builds the simulator reports for each line. */
export const VERSIONS: Record<SimulatedVersion, { version: string; build: number }> = {
  "1.1": { version: "1.1.110", build: 62580 },
  "2.0": { version: "2.0.72", build: 83505 },
  "2.1": { version: "2.1.12", build: 86020 },
};

/** The simulated line of a full version: 1.x is "1.1", 2.0.x is "2.0", anything newer behaves like "2.1". */
export function lineOf(fullVersion: string): SimulatedVersion {
  const [major, minor] = fullVersion.split(".").map(Number);
  if (major < 2) return "1.1";
  return major === 2 && minor === 0 ? "2.0" : "2.1";
}

/** The mods that ship inside data/ for a version, with base first. */
export function builtInMods(version: SimulatedVersion): string[] {
  if (version === "1.1") return ["base"];
  if (version === "2.0") return ["base", "elevated-rails", "quality", "space-age"];
  return ["base", "elevated-rails", "quality", "recycler", "space-age"];
}

const TITLES: Record<string, string> = {
  base: "Base mod",
  core: "Core",
  "elevated-rails": "Elevated rails",
  quality: "Quality",
  "space-age": "Space Age",
  recycler: "Recycler",
};

function infoJson(name: string, version: SimulatedVersion, full: string): Record<string, unknown> {
  const factorioVersion = full.split(".").slice(0, 2).join(".");
  const base: Record<string, unknown> = {
    name,
    version: full,
    title: TITLES[name],
    author: "Wube Software",
    contact: "support@factorio.com",
    homepage: "https://www.factorio.com",
    factorio_version: factorioVersion,
  };
  if (name === "core") return { ...base, dependencies: [] };
  if (name === "base") {
    return { ...base, description: "Basic mod with default Factorio content.", dependencies: [] };
  }
  const expansion = { ...base, expansion_required: true, description: `${TITLES[name]} expansion content.` };
  if (name === "space-age") {
    const deps = version === "2.0"
      ? ["base", "elevated-rails", "quality"]
      : ["base", "elevated-rails", "+ quality", "recycler"];
    return { ...expansion, dependencies: deps };
  }
  if (name === "quality" && version === "2.1") return { ...expansion, dependencies: ["base", "recycler"] };
  return { ...expansion, dependencies: ["base"] };
}

export interface FakeFactorio {
  dir: string;
  binary: string;
  version: SimulatedVersion;
  fullVersion: string;
  build: number;
}

export interface InstallOptions {
  /** An exact version (e.g. "2.0.77") instead of the line's default; its line decides the built-in mods. */
  fullVersion?: string;
  build?: number;
  /** Extra environment baked into the wrapper, e.g. FAKE_FACTORIO_CRASH_AFTER_MS for a build that cannot host. */
  env?: Record<string, string>;
  /** The build's layout: bin/x64 (default) or bin/arm64 (the native ARM64 build). */
  arch?: "x64" | "arm64";
}

/** Lays out a simulated installation in `dir` (created if needed) and returns where things are. */
export function installFakeFactorio(
  dir: string,
  version: SimulatedVersion = "2.0",
  opts: InstallOptions = {},
): FakeFactorio {
  const full = opts.fullVersion ?? VERSIONS[version].version;
  const build = opts.build ?? VERSIONS[version].build;
  const binDir = join(dir, "bin", opts.arch ?? "x64");
  for (const d of [binDir, join(dir, "config"), join(dir, "data"), join(dir, "saves"), join(dir, "mods")]) {
    mkdirSync(d, { recursive: true });
  }
  const binary = join(binDir, "factorio");
  const deno = join(ROOT, "node_modules", ".bin", "deno");
  const main = join(HERE, "main.ts");
  writeFileSync(
    binary,
    [
      "#!/bin/sh",
      "# Factorio headless simulator (Factorio Panel test double). See tests/fake-factorio/main.ts.",
      `export FAKE_FACTORIO_VERSION="\${FAKE_FACTORIO_VERSION:-${full}}"`,
      `export FAKE_FACTORIO_BUILD="\${FAKE_FACTORIO_BUILD:-${build}}"`,
      ...Object.entries(opts.env ?? {}).map(([k, v]) => `export ${k}="${v}"`),
      'FAKE_FACTORIO_EXECUTABLE="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"',
      "export FAKE_FACTORIO_EXECUTABLE",
      `exec "${deno}" run --allow-net --allow-read --allow-write --allow-env --allow-run --allow-sys --quiet --no-lock "${main}" "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(binary, 0o755);

  writeFileSync(
    join(dir, "config-path.cfg"),
    "config-path=__PATH__executable__/../../config\nuse-system-read-write-data-directories=false\n",
  );
  copyFileSync(join(HERE, "data", "config.ini"), join(dir, "config", "config.ini"));
  copyFileSync(
    join(
      HERE,
      "data",
      version === "1.1" ? "server-settings.example.1.1.json" : "server-settings.example.json",
    ),
    join(dir, "data", "server-settings.example.json"),
  );
  copyFileSync(
    join(HERE, "data", "server-whitelist.example.json"),
    join(dir, "data", "server-whitelist.example.json"),
  );
  for (const f of ["map-gen-settings.example.json", "map-settings.example.json"]) {
    copyFileSync(join(HERE, "data", version, f), join(dir, "data", f));
  }
  // The base game's scenarios (the simulator's own minimal ones, under the game's names).
  for (const scenario of ["freeplay", "pvp", "wave-defense"]) {
    mkdirSync(join(dir, "data", "base", "scenarios", scenario), { recursive: true });
    writeFileSync(
      join(dir, "data", "base", "scenarios", scenario, "control.lua"),
      `-- ${scenario} (Factorio simulator)\n`,
    );
    writeFileSync(
      join(dir, "data", "base", "scenarios", scenario, "description.json"),
      JSON.stringify({ "multiplayer-compatible": true, "order": scenario }) + "\n",
    );
  }
  for (const name of ["core", ...builtInMods(version)]) {
    mkdirSync(join(dir, "data", name), { recursive: true });
    writeFileSync(
      join(dir, "data", name, "info.json"),
      JSON.stringify(infoJson(name, version, full), null, 2) + "\n",
    );
  }
  return { dir, binary, version, fullVersion: full, build };
}

/**
 * Writes a save into <dir>/saves as the simulated game's --create would (without starting it), listing
 * the built-in mods plus `mods`. Returns its path.
 */
export async function createFakeSave(
  f: FakeFactorio,
  name: string,
  opts: { mods?: { name: string; version: string }[]; state?: Partial<SaveState>; mtime?: Date } = {},
): Promise<string> {
  const path = join(f.dir, "saves", name.endsWith(".zip") ? name : `${name}.zip`);
  const mods = [
    ...builtInMods(f.version).map((m) => ({ name: m, version: f.fullVersion })),
    ...(opts.mods ?? []),
  ];
  await writeSave(path, {
    version: f.fullVersion,
    build: f.build,
    mods,
    state: { tick: 0, players: [], seed: 12345, ...opts.state },
  });
  if (opts.mtime) utimesSync(path, opts.mtime, opts.mtime);
  return path;
}

if (import.meta.main) {
  const [target, version] = Deno.args;
  if (!target) {
    console.error("usage: install.ts <dir> [1.1|2.0|2.1]");
    Deno.exit(2);
  }
  const f = installFakeFactorio(resolve(target), (version ?? "2.0") as SimulatedVersion);
  console.log(`Simulated Factorio ${f.fullVersion} installed in ${f.dir}`);
}
