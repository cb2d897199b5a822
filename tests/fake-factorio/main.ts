// A simulator of the Factorio headless server, so the panel can be tested (and demonstrated) without the
// real game, which cannot be downloaded here. installFakeFactorio() (install.ts) lays out a Factorio
// directory whose bin/x64/factorio runs this file. It behaves like the game on the command line, on
// stdout, in factorio-current.log, on the UDP game port and over RCON.
//
// What it does, as the game does it:
//   --version                       "Version: 2.0.72 (build 83505, linux64, headless)" and the lines after it
//   --create FILE                   writes a save zip (level-init.dat header in the real format of the
//                                   version, listing the enabled mods), prints the game's create lines
//   --start-server FILE             hosts a map (FILE, FILE.zip, or a name in <write-data>/saves)
//   --start-server-load-latest      hosts the newest save in <write-data>/saves
//   --start-server-load-scenario [MOD/]NAME   hosts a new map from a scenario (NAME: <write-data>/scenarios/NAME
//                                   only; MOD/NAME: an enabled mod's scenarios/NAME, e.g. base/freeplay in
//                                   data/base); /server-save and the save on quit write <saves>/NAME.zip. For a
//                                   scenario of the user's folder that is where the game puts it (public setups
//                                   load it back from there: goofball222/factorio's Docker entrypoint starts
//                                   saves/<scenario>.zip after a first scenario run; FactorioScenarioMultiplayerSpawn
//                                   issue #43 finds saves/<scenario>.zip). For a mod's scenario no source was
//                                   found; the simulator uses NAME, and the panel depends on neither: it runs a
//                                   scenario start as "Load Latest". Timed autosaves are not simulated.
//   --scenario2map [MOD/]NAME, -m   a new map from the scenario (looked up as above, with the mods of
//                                   --mod-directory), written to <write-data>/saves/NAME.zip, or for a mod's
//                                   scenario to saves/MOD/NAME.zip (a sub-folder), then exits; an unknown
//                                   scenario is an error and a non-zero exit, nothing written
//     --bind ADDR[:PORT] --port N   UDP game socket (default 0.0.0.0:34197); a taken port fails like the game
//     --rcon-port N | --rcon-bind ADDR:PORT, --rcon-password PW    Source RCON (auth, multi-packet replies)
//     --server-settings FILE        read (max_players, auto_pause); unreadable -> error exit
//     --server-adminlist FILE       admins; /promote and /demote write it back (default <write-data>/server-adminlist.json)
//     --server-whitelist FILE --use-server-whitelist BOOL   whitelist; /whitelist add|remove|clear write it back
//                                   (a whitelist file without --use-server-whitelist is refused, as by the game)
//     --server-banlist FILE         bans; /ban and /unban write it back (default <write-data>/server-banlist.json)
//     --console-log FILE            copy of the console: [JOIN] [LEAVE] [CHAT] [KICK] [BAN] [PROMOTE] ...
//     --mod-directory DIR           mods (default <write-data>/mods): mod-list.json is created when missing,
//                                   new zips are enabled; on 2.x the built-in expansion mods are on by default;
//                                   mod-settings.dat is read (unreadable: the load fails) and written back
//                                   with this version in its header
//     -c, --config FILE             config.ini (default from config-path.cfg next to the install); a missing
//                                   config.ini is written with the default [path] (write-data beside the binary)
//   factorio-current.log            in the write-data dir, restarted at each run (old one kept as factorio-previous.log)
//   --dump-data, --generate-map-preview PATH (--map-preview-size, --map-preview-planet), and --create with
//   --map-gen-settings / --map-settings / --map-gen-seed / --preset: see world.ts
//   SIGINT / SIGTERM                "Received SIGINT, shutting down", saves the map, "Goodbye", exit code 0
//   SIGKILL                         dies at once (nothing to simulate)
//
// RCON commands, answered as the game answers them:
//   /players [online|o] [count|c], /admins, /time, /version, /seed, /help,
//   /save [NAME], /server-save (logged as the game does: "Saving to NAME (blocking)." ... "Saving finished";
//                                   1.1: "Saving game as /path/saves/NAME.zip" ... "Saving finished"),
//   /promote NAME, /demote NAME, /whitelist add|remove|get|clear [NAME],
//   /ban NAME [REASON], /unban NAME, /bans, /kick NAME [REASON],
//   /time (the map's age: "110 hours, 28 minutes and 57 seconds"; the clock is game.tick, see below),
//   /c, /command, /sc, /silent-command LUA: the save's first Lua command is held back with the achievements
//                                   warning (the RCON answer up to 2.0, a [WARNING] console line on 2.1) and
//                                   runs when sent again; /c is logged as [COMMAND], /sc is not. No Lua runs:
//                                   rcon.print(game.tick) and rcon.print(game.ticks_played) answer the tick,
//                                   other Lua answers nothing. Whether Lua ran is kept in the save.
//   plain text (chat as "<server>"), anything else: Unknown command "x".
//
// The clock: game.tick counts 60 per second while the map runs and stands still while it is paused:
// auto_pause (server-settings.json, default true) with nobody online, /fake-ups 0, a /fake-hang. It is kept
// in the save, so a restart continues from the saved tick.
//
// The simulator's own knobs:
//   RCON /fake-join NAME...          players join ([JOIN]); refused when banned, not whitelisted or the server is full;
//                                    "Jean Luc" in double quotes is one name (names with spaces)
//   RCON /fake-leave NAME...         players leave ([LEAVE])
//   RCON /fake-chat NAME TEXT        a player says something ([CHAT])
//   RCON /fake-save-delay MS         later saves take MS milliseconds (a game that hangs while saving)
//   RCON /fake-ups UPS               the game's speed (default 60; fewer: an overloaded server; 0: paused,
//                                    still answering)
//   RCON /fake-hang MS               the game hangs for MS milliseconds: no RCON answer (this one included)
//                                    and no ticks until it is over
//   RCON /fake-crash [CODE]          crashes at once: crash report, no save, exit CODE (default 1)
//   RCON /fake-flood COUNT [PER_S]   prints COUNT lines "[CHAT] bench: <n> <ms since epoch when printed>",
//                                    PER_S per second (0: as fast as it can), for benchmarks
//   --fake-crash-after MS / env FAKE_FACTORIO_CRASH_AFTER_MS
//                                    crashes MS after the process started (during loading if MS is short)
//   env FAKE_FACTORIO_CRASH_CODE     exit code of those crashes (default 1)
//   env FAKE_FACTORIO_STARTUP_MS     simulated loading time before hosting (default 300)
//   env FAKE_FACTORIO_SAVE_MS        simulated time to write a save (default 100)
//   env FAKE_FACTORIO_VERSION, FAKE_FACTORIO_BUILD
//                                    the game version (the wrapper sets those install.ts chose; a value in the
//                                    caller's environment wins)
//   env FAKE_FACTORIO_EXECUTABLE     the path the game was started as (set by the wrapper), which locates
//                                    config-path.cfg, config.ini and the data and write-data directories

import dgram from "node:dgram";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { Output } from "./output.ts";
import { enabledMods, loadModSettings, ModError } from "./mods.ts";
import { type HeaderMod, readSave, type SaveState, writeSave } from "./savefile.ts";
import { HostedGame, type ServerSettings } from "./server.ts";
import { RconServer } from "./rcon_server.ts";
import {
  checkPreset,
  findScenario,
  planets,
  readSettingsFile,
  SettingsError,
  writeDataDump,
  writePreview,
} from "./world.ts";

const VALUE_FLAGS = new Set([
  "--create",
  "--start-server",
  "--start-server-load-scenario",
  "--bind",
  "--port",
  "--server-settings",
  "--rcon-port",
  "--rcon-bind",
  "--rcon-password",
  "--server-adminlist",
  "--server-whitelist",
  "--use-server-whitelist",
  "--server-banlist",
  "--use-authserver-bans",
  "--console-log",
  "--mod-directory",
  "--config",
  "-c",
  "--map-gen-settings",
  "--map-settings",
  "--map-gen-seed",
  "--preset",
  "--server-id",
  "--executable-path",
  "--fake-crash-after",
  "--generate-map-preview",
  "--map-preview-size",
  "--map-preview-planet",
  "--map-preview-scale",
  "--scenario2map",
  "-m",
]);
const BOOL_FLAGS = new Set([
  "--start-server-load-latest",
  "--version",
  "-v",
  "--help",
  "-h",
  "--no-log-rotation",
  "--dump-data",
]);

const env = (name: string) => Deno.env.get(name);
const VERSION = env("FAKE_FACTORIO_VERSION") ?? "2.0.72";
const BUILD = Number(env("FAKE_FACTORIO_BUILD") ?? "83505");
const STARTUP_MS = Number(env("FAKE_FACTORIO_STARTUP_MS") ?? "300");
const SAVE_MS = Number(env("FAKE_FACTORIO_SAVE_MS") ?? "100");
const CRASH_CODE = Number(env("FAKE_FACTORIO_CRASH_CODE") ?? "1");

const out = new Output();
/** The map being hosted, once the game is in it. */
let hosted: HostedGame | null = null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

function parseArgs(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    let name = argv[i];
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (name.startsWith("--") && eq > 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    if (BOOL_FLAGS.has(name)) flags.set(name, "true");
    else if (VALUE_FLAGS.has(name)) {
      value ??= argv[++i];
      if (value === undefined) fail(`Error: the required argument for option '${name}' is missing`);
      flags.set(name === "-c" ? "--config" : name === "-m" ? "--scenario2map" : name, value);
    } else fail(`Error: unrecognised option '${name}'`);
  }
  return flags;
}

interface Paths {
  executable: string;
  readData: string;
  writeData: string;
  /** The config.ini in use (from --config or config-path.cfg), null when neither names one. */
  configIni: string | null;
}

/** Resolves read-data and write-data the way the game does: config-path.cfg, then [path] in config.ini. */
function locate(flags: Map<string, string>): Paths {
  const executable = resolve(
    flags.get("--executable-path") ?? env("FAKE_FACTORIO_EXECUTABLE") ?? Deno.execPath(),
  );
  const exeDir = dirname(executable);
  const expand = (v: string) => resolve(v.replaceAll("__PATH__executable__", exeDir));
  let configIni = flags.get("--config");
  const cfg = join(exeDir, "..", "..", "config-path.cfg");
  if (!configIni && existsSync(cfg)) {
    const m = /^config-path=(.*)$/m.exec(readFileSync(cfg, "utf8"));
    if (m) configIni = join(expand(m[1].trim()), "config.ini");
  }
  let readData = resolve(exeDir, "..", "..", "data");
  let writeData = resolve(exeDir, "..", "..");
  if (configIni && existsSync(configIni)) {
    const text = readFileSync(configIni, "utf8");
    const read = /^read-data=(.*)$/m.exec(text);
    const write = /^write-data=(.*)$/m.exec(text);
    if (read) readData = expand(read[1].trim());
    if (write) writeData = expand(write[1].trim());
  }
  return { executable, readData, writeData, configIni: configIni ?? null };
}

/**
 * The game writes a default config.ini where config-path.cfg (or --config) says when there is none, and
 * the default [path] puts write-data beside the executable. A panel that keeps write-data elsewhere must
 * have written its config.ini first; the simulator does the same, so a missing one is caught by tests.
 */
function ensureConfigIni(paths: Paths): void {
  if (!paths.configIni || existsSync(paths.configIni)) return;
  try {
    mkdirSync(dirname(paths.configIni), { recursive: true });
    writeFileSync(paths.configIni, readFileSync(new URL("./data/config.ini", import.meta.url)));
  } catch {
    // the game carries on with its defaults when it cannot write the file
  }
}

function printVersion(): void {
  const major = VERSION.split(".")[0];
  out.plain(`Version: ${VERSION} (build ${BUILD}, linux64, headless)`);
  out.plain("Binary version: 64");
  out.plain(`Map input version: ${major === "1" ? "0.18.0-0" : "1.0.0-0"}`);
  out.plain(`Map output version: ${VERSION}-0`);
}

function preamble(argv: string[], paths: Paths): void {
  out.engine(
    `${
      new Date().toISOString().slice(0, 19).replace("T", " ")
    }; Factorio ${VERSION} (build ${BUILD}, linux64, headless)`,
  );
  out.engine("Operating system: Linux (simulated)");
  out.engine(`Program arguments: ${[paths.executable, ...argv].map((a) => `"${a}"`).join(" ")}`);
  out.engine(`Read data path: ${paths.readData}`);
  out.engine(`Write data path: ${paths.writeData} [102400/204800MB]`);
  out.engine(`Binaries path: ${dirname(dirname(paths.executable))}`);
  out.engine(`System info: [CPU: Simulated CPU, ${navigator.hardwareConcurrency} cores, RAM: 4096 MB]`);
  out.engine("Running in headless mode");
}

function modDirOf(flags: Map<string, string>, paths: Paths): string {
  return flags.get("--mod-directory") ?? join(paths.writeData, "mods");
}

async function loadMods(flags: Map<string, string>, paths: Paths) {
  const modDir = modDirOf(flags, paths);
  let mods;
  try {
    mods = await enabledMods(modDir, paths.readData);
    const settings = loadModSettings(modDir, VERSION);
    if (settings) {
      out.engine(
        `Info ModSettings: loaded ${
          Object.entries(settings).map(([s, n]) => `${n} ${s}`).join(", ")
        } settings`,
      );
    }
  } catch (e) {
    if (!(e instanceof ModError)) throw e;
    out.engine(`Error Util.cpp:83: Failed to load mods: ${e.message}`);
    out.engine("Goodbye");
    Deno.exit(1);
  }
  out.engine("Loading mod core 0.0.0 (data.lua)");
  for (const m of mods) out.engine(`Loading mod ${m.name} ${m.version} (data.lua)`);
  await sleep(STARTUP_MS * 0.3);
  out.engine("Checksum for core: 4187927925");
  for (const m of mods) out.engine(`Checksum of ${m.name}: ${checksum(m.name + m.version)}`);
  out.engine(`Prototype list checksum: ${checksum(mods.map((m) => m.name).join())}`);
  out.engine("Info PlayerData.cpp:64: Local player-data.json unavailable");
  out.engine("Info PlayerData.cpp:71: Cloud player-data.json unavailable");
  out.engine("Factorio initialised");
  return mods;
}

function checksum(s: string): number {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

async function create(target: string, flags: Map<string, string>, paths: Paths): Promise<never> {
  let path = isAbsolute(target) ? target : resolve(target);
  if (!path.toLowerCase().endsWith(".zip")) path += ".zip";
  const mods = await loadMods(flags, paths);
  out.engine(`Info Main.cpp:1393: Creating new map ${path}`);
  if (/^_autosave/i.test(path.split("/").pop()!)) {
    out.engine(
      "Error Main.cpp:1402: Creating a save named _autosave* is not allowed: those names are kept for autosaves.",
    );
    out.engine("Goodbye");
    Deno.exit(1);
  }
  const world = worldSettings(flags, mods);
  await sleep(STARTUP_MS * 0.3);
  out.engine(`Info MainLoop.cpp:437: Saving map as ${path}`);
  await writeSave(path, { version: VERSION, build: BUILD, mods, state: { tick: 0, players: [], ...world } });
  out.engine("Info MainLoop.cpp:448: Saving progress: 100.000000%");
  out.engine("Goodbye");
  out.close();
  Deno.exit(0);
}

/** --map-gen-settings, --map-settings, --map-gen-seed and --preset as the game takes them; bad ones end the run. */
function worldSettings(flags: Map<string, string>, mods: HeaderMod[]) {
  try {
    const mapGen = readSettingsFile(flags.get("--map-gen-settings"), "map gen settings");
    const mapSettings = readSettingsFile(flags.get("--map-settings"), "map settings");
    const preset = flags.get("--preset");
    checkPreset(preset, VERSION);
    const seedFlag = flags.get("--map-gen-seed");
    if (seedFlag !== undefined && !/^\d+$/.test(seedFlag)) {
      throw new SettingsError(`Invalid map gen seed: ${seedFlag}`);
    }
    const fileSeed = typeof mapGen?.seed === "number" ? mapGen.seed : undefined;
    const seed = seedFlag !== undefined ? Number(seedFlag) : fileSeed ?? Math.floor(Math.random() * 2 ** 32);
    return {
      seed,
      ...(mapGen ? { map_gen_settings: mapGen } : {}),
      ...(mapSettings ? { map_settings: mapSettings } : {}),
      ...(preset ? { preset } : {}),
      planets: Object.keys(planets(VERSION, mods)),
    };
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    out.engine(`Error Util.cpp:83: ${e.message}`);
    out.engine("Goodbye");
    out.close();
    Deno.exit(1);
  }
}

/**
 * --scenario2map [MOD/]NAME: a new map from the scenario, saved where the game puts it (public scripts
 * calling the game, e.g. factorio-test-cli's docs and test runners, read it back from there):
 * <write-data>/saves/NAME.zip, or saves/MOD/NAME.zip for a mod's scenario. The save keeps the scenario's
 * name in its state, so tests can tell which scenario it came from.
 */
async function scenarioToMap(name: string, flags: Map<string, string>, paths: Paths): Promise<never> {
  const mods = await loadMods(flags, paths);
  const dir = await findScenario(name, paths, mods, modDirOf(flags, paths));
  if (!dir) {
    out.engine(`Error Main.cpp:1123: Scenario ${name} not found.`);
    out.engine("Goodbye");
    out.close();
    Deno.exit(1);
  }
  const slash = name.indexOf("/");
  const path = slash < 0
    ? join(paths.writeData, "saves", `${name}.zip`)
    : join(paths.writeData, "saves", name.slice(0, slash), `${name.slice(slash + 1)}.zip`);
  out.engine(`Loading scenario ${name} (${dir}).`);
  await sleep(STARTUP_MS * 0.3);
  mkdirSync(dirname(path), { recursive: true });
  out.engine(`Info MainLoop.cpp:437: Saving map as ${path}`);
  const seed = Math.floor(Math.random() * 2 ** 32);
  await writeSave(path, {
    version: VERSION,
    build: BUILD,
    mods,
    state: { tick: 0, players: [], seed, scenario: name },
  });
  out.engine("Info MainLoop.cpp:448: Saving progress: 100.000000%");
  out.engine("Goodbye");
  out.close();
  Deno.exit(0);
}

/** --generate-map-preview: loads the mods, renders the map picture, exits. */
async function preview(target: string, flags: Map<string, string>, paths: Paths): Promise<never> {
  const mods = await loadMods(flags, paths);
  const world = worldSettings(flags, mods);
  const size = Number(flags.get("--map-preview-size") ?? "1024");
  const planet = flags.get("--map-preview-planet") ?? "nauvis";
  const fail = (message: string): never => {
    out.engine(`Error Util.cpp:83: ${message}`);
    out.engine("Goodbye");
    out.close();
    Deno.exit(1);
  };
  if (!Number.isInteger(size) || size < 16 || size > 4096) {
    fail(`Invalid map preview size: ${flags.get("--map-preview-size")}`);
  }
  if (!(planet in planets(VERSION, mods))) fail(`Unknown planet: ${planet}`);
  const path = isAbsolute(target) ? target : resolve(target);
  out.engine(`Info MapPreview: generating a ${size}x${size} preview of ${planet} (seed ${world.seed})`);
  await sleep(STARTUP_MS * 0.3);
  writePreview(path, size, planet, world.seed, world.map_gen_settings ?? {});
  out.engine(`Info MapPreview: wrote ${path}`);
  out.engine("Goodbye");
  out.close();
  Deno.exit(0);
}

function newestSave(savesDir: string): string | null {
  if (!existsSync(savesDir)) return null;
  let best: { path: string; mtime: number } | null = null;
  for (const name of readdirSync(savesDir)) {
    if (!name.toLowerCase().endsWith(".zip") || name.startsWith(".")) continue;
    const path = join(savesDir, name);
    const mtime = statSync(path).mtimeMs;
    if (!best || mtime > best.mtime) best = { path, mtime };
  }
  return best?.path ?? null;
}

function findSave(name: string, savesDir: string): string | null {
  for (const p of [name, `${name}.zip`, join(savesDir, name), join(savesDir, `${name}.zip`)]) {
    if (existsSync(p) && statSync(p).isFile()) return resolve(p);
  }
  return null;
}

function splitAddress(value: string, defaultPort: number): { host: string; port: number } {
  const i = value.lastIndexOf(":");
  if (i > 0 && /^\d+$/.test(value.slice(i + 1))) {
    return { host: value.slice(0, i), port: Number(value.slice(i + 1)) };
  }
  return { host: value, port: defaultPort };
}

function initFailed(message: string): never {
  out.engine(`Error ServerMultiplayerManager.cpp:91: MultiplayerManager failed: "${message}"`);
  out.engine(
    "Info ServerMultiplayerManager.cpp:808: updateTick(18446744073709551615) changing state from(CreatingGame) to(InitializationFailed)",
  );
  out.engine("Quitting: multiplayer error.");
  out.engine("Goodbye");
  out.close();
  Deno.exit(1);
}

function bindUdp(host: string, port: number): Promise<dgram.Socket> {
  return new Promise((ok, bad) => {
    const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
    socket.once("error", bad);
    socket.bind(port, host, () => {
      socket.off("error", bad);
      ok(socket);
    });
  });
}

async function host(flags: Map<string, string>, paths: Paths): Promise<void> {
  const crashAfter = Number(flags.get("--fake-crash-after") ?? env("FAKE_FACTORIO_CRASH_AFTER_MS") ?? NaN);
  if (Number.isFinite(crashAfter)) {
    setTimeout(() => {
      if (hosted) hosted.crash(CRASH_CODE);
      // Still loading: the same report without a map tick.
      out.engine("Error Util.cpp:83: Received SIGSEGV");
      out.raw("Factorio crashed. Generating symbolized stacktrace, please wait ...");
      out.raw("Stack trace logging done");
      out.close();
      Deno.exit(CRASH_CODE);
    }, Math.max(0, crashAfter - (performance.now() - out.t0)));
  }

  if (flags.has("--server-whitelist") && !flags.has("--use-server-whitelist")) {
    out.engine("Error Main.cpp:1054: use-server-whitelist must be set when server-whitelist is set");
    out.engine("Goodbye");
    Deno.exit(1);
  }
  let settings: ServerSettings = {};
  const settingsFile = flags.get("--server-settings");
  if (settingsFile) {
    try {
      settings = JSON.parse(readFileSync(settingsFile, "utf8"));
    } catch (e) {
      out.engine(
        `Error Util.cpp:83: Failed to load server settings from ${settingsFile}: ${(e as Error).message}`,
      );
      out.engine("Goodbye");
      Deno.exit(1);
    }
  }
  const mods = await loadMods(flags, paths);
  const savesDir = join(paths.writeData, "saves");
  out.engine(
    "Info ServerMultiplayerManager.cpp:808: updateTick(18446744073709551615) changing state from(Ready) to(PreparedToHostGame)",
  );
  out.engine(
    "Info ServerMultiplayerManager.cpp:808: updateTick(18446744073709551615) changing state from(PreparedToHostGame) to(CreatingGame)",
  );
  const wanted = flags.get("--start-server");
  const scenario = flags.get("--start-server-load-scenario");
  let savePath: string | null;
  let loaded: { state: SaveState; levelBytes: number };
  if (scenario !== undefined) {
    // A new map from the scenario; the simulator keeps it as <saves>/<scenario name>.zip when it saves.
    const dir = await findScenario(scenario, paths, mods, modDirOf(flags, paths));
    if (!dir) initFailed(`Scenario ${scenario} not found.`);
    savePath = join(savesDir, `${scenario.split("/").pop()}.zip`);
    loaded = {
      state: { tick: 0, players: [], seed: Math.floor(Math.random() * 2 ** 32), scenario },
      levelBytes: 0,
    };
    out.engine(`Loading scenario ${scenario} (${dir}).`);
  } else {
    savePath = wanted !== undefined ? findSave(wanted, savesDir) : newestSave(savesDir);
    if (!savePath) {
      initFailed(
        wanted !== undefined ? `Map file ${wanted} does not exist.` : `No save file found in ${savesDir}.`,
      );
    }
    try {
      loaded = await readSave(savePath);
    } catch (e) {
      initFailed(`Loading map ${savePath} failed: ${(e as Error).message}`);
    }
    out.engine(`Loading map ${savePath}: ${statSync(savePath).size} bytes.`);
  }
  out.engine(`Loading level.dat: ${loaded.levelBytes} bytes.`);
  out.engine(`Info Scenario.cpp:154: Map version ${VERSION}-0`);
  await sleep(STARTUP_MS * 0.4);
  out.engine(`Checksum for script __level__/control.lua: ${checksum(savePath)}`);

  const game = new HostedGame({
    out,
    version: VERSION,
    build: BUILD,
    mods,
    savePath,
    state: loaded.state,
    settings,
    adminList: flags.get("--server-adminlist") ?? join(paths.writeData, "server-adminlist.json"),
    whitelist: flags.get("--server-whitelist") ?? null,
    useWhitelist: flags.get("--use-server-whitelist") === "true",
    banList: flags.get("--server-banlist") ?? join(paths.writeData, "server-banlist.json"),
    saveMs: SAVE_MS,
    savesDir,
    mapBytes: loaded.levelBytes,
  });

  const bind = splitAddress(flags.get("--bind") ?? "0.0.0.0", 34197);
  if (flags.has("--port")) bind.port = Number(flags.get("--port"));
  const address = `IP ADDR:({${bind.host}:${bind.port}})`;
  out.engine(`Info UDPSocket.cpp:38: Opening socket at (${address})`);
  try {
    await bindUdp(bind.host, bind.port);
  } catch (e) {
    const code = (e as { code?: string }).code;
    initFailed(
      code === "EADDRINUSE"
        ? "Host address is already in use."
        : `Cannot open socket: ${(e as Error).message}`,
    );
  }
  out.engine(`Hosting game at ${address}`);
  await sleep(STARTUP_MS * 0.3);
  out.engine(
    `Info ServerMultiplayerManager.cpp:808: updateTick(${game.tick()}) changing state from(CreatingGame) to(InGame)`,
  );
  hosted = game;

  const rconBind = flags.get("--rcon-bind") ??
    (flags.has("--rcon-port") ? `0.0.0.0:${flags.get("--rcon-port")}` : null);
  if (rconBind) {
    const password = flags.get("--rcon-password") ?? "";
    const { host: rconHost, port: rconPort } = splitAddress(rconBind, 27015);
    if (password === "") {
      out.engine(
        "Warning RemoteCommandProcessor.cpp:104: RCON password is empty, RCON interface will not be started.",
      );
    } else {
      try {
        new RconServer({
          hostname: rconHost,
          port: rconPort,
          password,
          execute: (command) => game.execute(command),
          onConnection: (remote) =>
            out.engine(`Info RemoteCommandProcessor.cpp:245: New RCON connection from IP ADDR:({${remote}})`),
        });
      } catch (e) {
        out.engine(
          `Error RemoteCommandProcessor.cpp:117: Failed to start RCON interface at IP ADDR:({${rconBind}}): ${
            (e as Error).message
          }`,
        );
        out.engine("Goodbye");
        Deno.exit(1);
      }
      out.engine(
        `Info RemoteCommandProcessor.cpp:126: Starting RCON interface at IP ADDR:({${rconHost}:${rconPort}})`,
      );
    }
  }
  out.engine(
    "Info CommandLineMultiplayer.cpp:292: Maximum segment size = 100; minimum segment size = 25; maximum-segment-size peer count = 10; minimum-segment-size peer count = 20",
  );
}

async function main(argv: string[]): Promise<void> {
  const flags = parseArgs(argv);
  if (flags.has("--version") || flags.has("-v")) {
    printVersion();
    Deno.exit(0);
  }
  if (flags.has("--help") || flags.has("-h")) {
    out.plain("Usage: factorio [options]  (simulated headless server; see tests/fake-factorio/main.ts)");
    Deno.exit(0);
  }
  const paths = locate(flags);
  ensureConfigIni(paths);
  const creating = flags.get("--create");
  const hosting = flags.has("--start-server") || flags.has("--start-server-load-latest") ||
    flags.has("--start-server-load-scenario");
  const previewing = flags.get("--generate-map-preview");
  const dumping = flags.has("--dump-data");
  const converting = flags.get("--scenario2map");
  if (!creating && !hosting && !previewing && !dumping && !converting) {
    fail("Error: the headless server needs --create, --start-server or --start-server-load-latest");
  }
  out.openGameLog(paths.writeData);
  out.setConsoleLog(flags.get("--console-log") ?? null);
  preamble(argv, paths);
  if (creating) await create(creating, flags, paths);
  if (previewing) await preview(previewing, flags, paths);
  if (converting) await scenarioToMap(converting, flags, paths);
  if (dumping) {
    const mods = await loadMods(flags, paths);
    const path = writeDataDump(paths.writeData, VERSION, mods);
    out.engine(`Info DataDump: wrote ${path}`);
    out.engine("Goodbye");
    out.close();
    Deno.exit(0);
  }

  // Signals are handled from the first moment, as the game does: a SIGINT while loading quits without saving.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      if (hosted) void hosted.quit(signal);
      else {
        out.engine(`Received ${signal}, shutting down`);
        out.engine("Goodbye");
        out.close();
        Deno.exit(0);
      }
    });
  }
  await host(flags, paths);
}

await main(Deno.args);
