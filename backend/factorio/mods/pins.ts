// Mods the admin pinned at their installed version: no update badge, skipped by "Update all" and by
// scheduled updates. Kept in the panel's data dir, not in mod-list.json: the game's own "version" key
// there means "load this version" (the in-game mod manager and loading a save's versions set it), which is
// not the admin asking the panel to hold a mod back.

import { readFileSync } from "node:fs";
import { writeJsonAtomic } from "../../lib/fsutil.ts";

export const MOD_PINS_FILE = "mod-pins.json";

export class ModPins {
  constructor(readonly path: string) {}

  /** name -> the version it was pinned at. A missing or unreadable file pins nothing. */
  all(): Record<string, string> {
    try {
      const data = JSON.parse(readFileSync(this.path, "utf8"));
      const mods = data?.mods;
      if (typeof mods !== "object" || mods === null || Array.isArray(mods)) return {};
      return Object.fromEntries(Object.entries(mods).filter(([, v]) => typeof v === "string")) as Record<
        string,
        string
      >;
    } catch {
      return {};
    }
  }

  has(name: string): boolean {
    return Object.hasOwn(this.all(), name);
  }

  /** Pins `name` at `version`, or unpins it (null). Callers hold the mods folder's lock. */
  set(name: string, version: string | null): void {
    const mods = this.all();
    if (version === null) delete mods[name];
    else mods[name] = version;
    writeJsonAtomic(this.path, { mods }, 0o644, 2);
  }
}
