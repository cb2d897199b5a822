// Start-up sweep of what a killed panel leaves behind: hidden temp files of atomic writes, uploads and
// mod downloads, and the staging folders of mod pack copies. Nothing else runs yet, so none of them can
// still be in use. The names are the ones lib/fsutil.ts (tempPathFor), factorio/mods/portal.ts and
// factorio/mods/packs.ts (stagingPath) make; nothing a person would name a file is touched.

import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../lib/log.ts";

/** `.<name>.<12 hex>.tmp`: tempPathFor (atomic writes, `.upload.*.tmp`) and `.download.<id>.tmp`. */
const TEMP_FILE = /^\..+\.[0-9a-f]{12}\.tmp$/;
/**
 * `.scenario2map-aside.<12 hex>.<name>`: a save kept aside while the game turned a scenario into a map at
 * its place (factorio/world/scenario2map.ts). It goes back over whatever the interrupted run left there.
 */
export const SCENARIO_ASIDE = /^\.scenario2map-aside\.[0-9a-f]{12}\.(.+)$/;
/** `.<folder>.<new|load|old>-<12 hex>`: mod pack staging folders. */
const STAGING = /^\.(.+)\.(new|load|old)-[0-9a-f]{12}$/;

export interface SweepResult {
  removed: string[];
  restored: string[];
}

/** Removes stale temp files and staging folders directly inside each of `dirs` (and one level below). */
export function removeStaleTempFiles(dirs: string[], log: Logger): SweepResult {
  const result: SweepResult = { removed: [], restored: [] };
  const seen = new Map<string, number>();
  const visit = (dir: string, depth: number) => {
    if ((seen.get(dir) ?? -1) >= depth) return;
    seen.set(dir, depth);
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return; // not there yet
    }
    for (const e of entries) {
      // Every name the panel leaves starts with a dot; the others (saves, mods, the game's files: a
      // thousand entries in a large install) cost no stat, path or pattern, only a look one level down.
      if (!e.name.startsWith(".")) {
        if (e.isDirectory && depth > 0) visit(join(dir, e.name), depth - 1);
        continue;
      }
      const path = join(dir, e.name);
      if (!existsSync(path)) continue; // removed on an earlier, shallower visit
      const staged = STAGING.exec(e.name);
      if (staged && e.isDirectory) {
        // A kill between the two renames of a pack load leaves the mods only in the "old" folder.
        const live = join(dir, staged[1]);
        if (staged[2] === "old" && !existsSync(live)) {
          renameSync(path, live);
          result.restored.push(live);
          continue;
        }
        rmSync(path, { recursive: true, force: true });
        result.removed.push(path);
      } else if (SCENARIO_ASIDE.test(e.name) && e.isFile) {
        const back = join(dir, SCENARIO_ASIDE.exec(e.name)![1]);
        renameSync(path, back);
        result.restored.push(back);
      } else if (TEMP_FILE.test(e.name) && e.isFile) {
        rmSync(path, { force: true });
        result.removed.push(path);
      }
    }
  };
  for (const dir of dirs) visit(dir, 1);
  if (result.removed.length) {
    log.info("Removed temp files left by an earlier run", {
      count: result.removed.length,
      files: result.removed.slice(0, 20),
    });
  }
  for (const r of result.restored) {
    log.warn("Put back what an interrupted pack load or scenario conversion left aside", { path: r });
  }
  return result;
}
