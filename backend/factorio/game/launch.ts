// The game's command line, and starting it detached: its own session (a Ctrl-C or a restart of the
// panel does not reach it), its output appended to a file the panel follows, and a umask that keeps every
// file it writes owner-only (its log holds its own command line, RCON password included).

import { existsSync, writeFileSync } from "node:fs";
import type { FactorioPaths } from "../layout.ts";
import { ensureServerSettingsFile } from "../layout.ts";
import { inside, safeName } from "../paths.ts";
import { ensureDir, writeFileAtomic } from "../../lib/fsutil.ts";
import { Invalid, NotFound } from "../../lib/errors.ts";
import { LOAD_LATEST, type StartRequest } from "../../../shared/api.ts";
import { MSG } from "../../../shared/messages.ts";
import type { LaunchArgsProvider } from "./control.ts";
import type { RconSecret } from "./console.ts";
import { ensureSharedConfig } from "../versions/store.ts";

export interface LaunchPlan {
  args: string[];
  /** The save as shown in the status: a file name, or "Load Latest". */
  savefile: string;
}

function hasSaves(dir: string): boolean {
  try {
    return [...Deno.readDirSync(dir)].some((e) =>
      e.isFile && /\.zip$/i.test(e.name) && !e.name.startsWith(".")
    );
  } catch {
    return false;
  }
}

/** Checks the request against the Factorio directory and builds the arguments of `--start-server`. */
export async function planLaunch(
  paths: FactorioPaths,
  request: StartRequest,
  secret: RconSecret,
  providers: LaunchArgsProvider[],
): Promise<LaunchPlan> {
  if (!existsSync(paths.binary)) {
    throw new NotFound(
      `The Factorio executable was not found at ${paths.binary} (see --factorio-dir and --factorio-binary).`,
    );
  }
  let saveArgs: string[];
  let savefile: string;
  if (request.scenario !== undefined) {
    // Checked against the game's list by the caller (http/world.ts); a restart of this run loads the latest save.
    saveArgs = ["--start-server-load-scenario", request.scenario];
    savefile = LOAD_LATEST;
  } else if (request.savefile === LOAD_LATEST) {
    if (!hasSaves(paths.saves)) throw new Invalid(MSG.saveMustBeCreated);
    saveArgs = ["--start-server-load-latest"];
    savefile = LOAD_LATEST;
  } else {
    savefile = safeName(request.savefile, "Save", { ext: ".zip" });
    const path = inside(paths.saves, savefile);
    if (!existsSync(path)) throw new NotFound(`Save ${savefile} does not exist.`);
    saveArgs = ["--start-server", path];
  }
  const args = ["--bind", request.bindip, "--port", String(request.port)];
  // A server other than the first runs a shared game (a downloaded version, or the first server's game
  // installed by hand): its config.ini says where it writes (its own directory), not the
  // config-path.cfg beside the shared binary, which names the first server's.
  if (paths.root !== paths.versionsHome) {
    ensureSharedConfig(paths.root);
    args.unshift("--config", paths.configIni);
  }
  if (ensureServerSettingsFile(paths)) args.push("--server-settings", paths.serverSettings);
  ensureDir(paths.configDir);
  if (!existsSync(paths.adminList)) writeFileAtomic(paths.adminList, "[]\n");
  args.push("--server-adminlist", paths.adminList, "--console-log", paths.consoleLog);
  args.push("--mod-directory", paths.mods);
  args.push("--rcon-bind", `127.0.0.1:${secret.port}`, "--rcon-password", secret.password);
  for (const provider of providers) args.push(...(await provider()));
  args.push(...saveArgs);
  return { args, savefile };
}

/** The game's own files that may hold its command line: made owner-only if an earlier run left them open. */
export function tightenGameFiles(paths: FactorioPaths): void {
  for (const file of [paths.currentLog, paths.previousLog, paths.consoleLog]) {
    try {
      Deno.chmodSync(file, 0o600);
    } catch {
      // not there yet
    }
  }
}

/** Starts the game detached, its output appended to `outputFile`. The child's pid is the game's. */
export function spawnGame(paths: FactorioPaths, args: string[], outputFile: string): Deno.ChildProcess {
  writeFileSync(outputFile, "", { mode: 0o600 });
  tightenGameFiles(paths);
  // sh replaces itself with the game (exec), so the pid is the game's.
  return new Deno.Command("/bin/sh", {
    args: ["-c", 'umask 077; exec "$@" >>"$0" 2>&1 </dev/null', outputFile, paths.binary, ...args],
    cwd: paths.root,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
}
