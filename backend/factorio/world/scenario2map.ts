// A scenario turned into a save with the game's own `--scenario2map [MOD/]NAME`. Facts from public scripts
// calling the game (e.g. factorio-test-cli's docs and test runners, which read the result back): the game
// makes a new map from the scenario, loading the mods of --mod-directory (so a mod's scenario needs that mod
// enabled), writes it into the write-data saves folder and exits 0; a plain NAME (top-level scenarios
// folder) becomes saves/NAME.zip, a mod's MOD/NAME becomes saves/MOD/NAME.zip, a sub-folder the saves list
// does not show. A failure is a non-zero exit with an error line in the output.
//
// So the panel: keeps any file already at the game's output path aside while the game runs (the game
// would write over it), moves the new map to saves/<chosen name>.zip with one rename, puts back what it
// kept aside, removes the sub-folder it caused, and answers success only once the save is there and
// reads as a save.

import { existsSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Logger } from "../../lib/log.ts";
import { inside, saveFileName } from "../paths.ts";
import { isSaveZip } from "../saves/header.ts";
import { Conflict, HttpError } from "../../lib/errors.ts";
import { ensureDir } from "../../lib/fsutil.ts";
import type { RunResult } from "./generator.ts";

export interface ScenarioToSaveOptions {
  savesDir: string;
  modsDir: string;
  /** Runs the game once with these arguments (the world generator's queue: one game run at a time). */
  run: (args: string[]) => Promise<RunResult>;
  log: Logger;
}

/** Where the game writes the map of `scenario`, and the sub-folder it uses for a mod's scenario. */
export function scenarioOutput(savesDir: string, scenario: string): { file: string; folder: string | null } {
  const slash = scenario.indexOf("/");
  if (slash < 0) return { file: inside(savesDir, `${scenario}.zip`), folder: null };
  const folder = inside(savesDir, scenario.slice(0, slash));
  return { file: inside(folder, `${scenario.slice(slash + 1)}.zip`), folder };
}

/** The game's error line in its output ("... Error Main.cpp:12: what" -> "what"), else its last line. */
export function gameErrorLine(output: string): string {
  const lines = output.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const error = lines.findLast((l) => /\bError\b/.test(l));
  if (error) return error.replace(/^.*?\bError\b(?: [\w.]+:\d+:)?\s*/, "") || error;
  return lines.at(-1) ?? "the game wrote nothing";
}

/**
 * Where a file the game would write over waits: beside it, under a hidden name that still says its own, so
 * a panel killed meanwhile puts it back at the next start (boot/tempfiles.ts, SCENARIO_ASIDE).
 */
export function asidePath(file: string): string {
  return join(dirname(file), `.scenario2map-aside.${randomBytes(6).toString("hex")}.${basename(file)}`);
}

function isEmptyDir(path: string): boolean {
  try {
    return statSync(path).isDirectory() && readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/**
 * Makes saves/<save>.zip from `scenario` (a name from the scenarios list). `overwrite`: an existing save of
 * that name is replaced; otherwise it is a 409. Answers the message for the user.
 */
export async function scenarioToSave(
  o: ScenarioToSaveOptions,
  scenario: string,
  saveInput: unknown,
  overwrite: boolean,
): Promise<string> {
  const name = saveFileName(saveInput, { what: "Save name", creating: true });
  const dest = inside(o.savesDir, name);
  if (existsSync(dest) && !overwrite) {
    throw new Conflict(`A save named ${name} already exists. Choose another name, or ask to replace it.`);
  }
  ensureDir(o.savesDir);
  const out = scenarioOutput(o.savesDir, scenario);
  const madeFolder = out.folder !== null && !existsSync(out.folder);
  // A file already where the game writes (a save named like the scenario, or an earlier conversion) is kept
  // aside under a hidden name, which no listing shows, and put back afterwards.
  const kept = existsSync(out.file) ? asidePath(out.file) : null;
  if (kept) renameSync(out.file, kept);
  let keptUsed = false;
  try {
    o.log.info("Creating a save from a scenario", { scenario, save: name });
    const r = await o.run(["--scenario2map", scenario, "--mod-directory", o.modsDir]);
    const fail = (why: string) => {
      rmSync(out.file, { force: true });
      o.log.warn("Creating a save from a scenario failed", {
        scenario,
        save: name,
        why,
        output: r.output.slice(-2000),
      });
      return new HttpError(500, `The game could not make a save from the scenario ${scenario}: ${why}`);
    };
    if (!r.ok) throw fail(gameErrorLine(r.output));
    if (!existsSync(out.file)) throw fail("it exited without writing the map");
    const check = await isSaveZip(out.file);
    if (!check.ok) throw fail(`what it wrote is not a save: ${check.reason}`);
    // One rename: the save appears complete or not at all (the same filesystem: both are in saves/).
    renameSync(out.file, dest);
    if (kept && out.file === dest) {
      rmSync(kept, { force: true }); // the save the user asked to replace
      keptUsed = true;
    }
    if (!(await isSaveZip(dest)).ok) {
      throw new HttpError(500, `The save ${name} was not found after moving it into place.`);
    }
    o.log.info("Save created from a scenario", { scenario, save: name });
    return `Save ${name} created from the scenario ${scenario}.`;
  } finally {
    if (kept && !keptUsed) {
      rmSync(out.file, { force: true });
      renameSync(kept, out.file);
    }
    if (madeFolder && out.folder && isEmptyDir(out.folder)) rmdirSync(out.folder);
  }
}
