// Where things are inside the Factorio directory. Every area takes its paths from here, so the game
// server, saves, mods and settings always agree on which file is which.

import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../boot/config.ts";
import { tempPathFor } from "../lib/fsutil.ts";
import { renameSync } from "node:fs";
import { activeVersion, gameBinaryIn, versionDir } from "./versions/store.ts";
import { keptFor } from "../../shared/util.ts";

export interface FactorioPaths {
  root: string;
  /**
   * The folder whose versions/ holds the downloaded game versions, shared by every server: the first
   * server's Factorio directory. Each server's active version is its own (<root>/versions/active.json).
   */
  versionsHome: string;
  binary: string;
  saves: string;
  mods: string;
  modList: string;
  modSettings: string;
  data: string;
  baseInfo: string;
  configDir: string;
  configIni: string;
  serverSettings: string;
  serverSettingsExample: string;
  adminList: string;
  whitelist: string;
  banlist: string;
  /** The log the game itself writes in its write-data directory (truncated at each start). */
  currentLog: string;
  /** The game's log of its previous run. */
  previousLog: string;
  /** The --console-log copy of the server console (chat, joins, leaves). */
  consoleLog: string;
}

/**
 * The game's files. `root` is the write-data directory (saves, mods, config, logs), shared by every game
 * version; the binary and data/ come from the active version (versions/store.ts), looked up on each read
 * so a version switch reaches every area at once, or from --factorio-dir/--factorio-binary for a game
 * installed by hand.
 */
export function factorioPaths(
  config: Pick<Config, "factorioDir" | "factorioBinary">,
  versionsHome: string = config.factorioDir,
): FactorioPaths {
  const root = config.factorioDir;
  const mods = join(root, "mods");
  const configDir = join(root, "config");
  const dirOf = (
    active: ReturnType<typeof activeVersion>,
  ) => (active ? versionDir(versionsHome, active.version) : null);
  // Asked on every mod list request (its cache's paths): joined again only when the active version changes.
  // Without a managed version, the game installed by hand: data/ in --factorio-dir, or else beside the
  // executable's bin/ (a server sharing the first server's game; a binary outside the directory).
  const handInstalled = join(dirname(dirname(dirname(config.factorioBinary))), "data");
  const dataOf = keptFor((active: ReturnType<typeof activeVersion>) => {
    const dir = dirOf(active);
    if (dir) return join(dir, "data");
    return existsSync(join(root, "data")) ? join(root, "data") : handInstalled;
  });
  const data = () => dataOf(activeVersion(root));
  // Looked up again only when the active version changes: the x64 or the ARM64 build's layout.
  const binaryOf = keptFor((active: ReturnType<typeof activeVersion>) => {
    const dir = dirOf(active);
    return dir ? gameBinaryIn(dir) : config.factorioBinary;
  });
  return {
    root,
    versionsHome,
    get binary() {
      return binaryOf(activeVersion(root));
    },
    saves: join(root, "saves"),
    mods,
    modList: join(mods, "mod-list.json"),
    modSettings: join(mods, "mod-settings.dat"),
    get data() {
      return data();
    },
    get baseInfo() {
      return join(data(), "base", "info.json");
    },
    configDir,
    configIni: join(configDir, "config.ini"),
    serverSettings: join(configDir, "server-settings.json"),
    get serverSettingsExample() {
      return join(data(), "server-settings.example.json");
    },
    adminList: join(configDir, "server-adminlist.json"),
    whitelist: join(configDir, "server-whitelist.json"),
    banlist: join(configDir, "server-banlist.json"),
    currentLog: join(root, "factorio-current.log"),
    previousLog: join(root, "factorio-previous.log"),
    consoleLog: join(root, "factorio-console.log"),
  };
}

/**
 * Creates server-settings.json from the game's example on first use (as the game's docs say to), with
 * an atomic copy. Returns false when there is neither file.
 */
export function ensureServerSettingsFile(paths: FactorioPaths): boolean {
  if (existsSync(paths.serverSettings)) return true;
  if (!existsSync(paths.serverSettingsExample)) return false;
  mkdirSync(dirname(paths.serverSettings), { recursive: true });
  const tmp = tempPathFor(paths.serverSettings);
  copyFileSync(paths.serverSettingsExample, tmp);
  renameSync(tmp, paths.serverSettings);
  return true;
}
