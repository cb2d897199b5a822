// The scenarios the game can start a server on (`--start-server-load-scenario [MOD/]NAME`): the user's own
// (<factorio-dir>/scenarios/NAME), those of the game's built-in mods (data/<mod>/scenarios/NAME as MOD/NAME,
// so the game's own are base/freeplay, ...) and those inside enabled mod zips (<mod>/scenarios/NAME/ as
// MOD/NAME). A name without a mod is looked for only in the top-level scenarios directory (the game's --help:
// "If no mod is given, it is looked for in the top-level scenarios directory"; public scripts start
// "--start-server-load-scenario base/freeplay"), which is why base's scenarios carry their prefix too.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { FactorioPaths } from "../layout.ts";
import type { ModDir } from "../mods/moddir.ts";
import { ZipError, ZipReader } from "../../lib/zip.ts";
import type { Scenario } from "../../../shared/world.ts";

function dirs(path: string): string[] {
  try {
    return readdirSync(path).filter((n) => !n.startsWith(".") && statSync(join(path, n)).isDirectory())
      .sort();
  } catch {
    return [];
  }
}

export async function listScenarios(paths: FactorioPaths, mods: ModDir): Promise<Scenario[]> {
  const out: Scenario[] = [];
  for (const name of dirs(join(paths.root, "scenarios"))) out.push({ name, source: "your scenarios" });
  for (const mod of await mods.list()) {
    if (!mod.enabled || mod.error !== null) continue;
    if (mod.built_in) {
      for (const name of dirs(join(paths.data, mod.name, "scenarios"))) {
        out.push({ name: `${mod.name}/${name}`, source: mod.title });
      }
      continue;
    }
    if (!mod.file_name.toLowerCase().endsWith(".zip")) {
      for (const name of dirs(join(mods.dir, mod.file_name, "scenarios"))) {
        out.push({ name: `${mod.name}/${name}`, source: mod.title });
      }
      continue;
    }
    let zip: ZipReader | null = null;
    try {
      zip = await ZipReader.open(join(mods.dir, mod.file_name));
      const names = new Set<string>();
      for (const e of zip.entries) {
        const m = /^[^/]+\/scenarios\/([^/]+)\//.exec(e.name);
        if (m) names.add(m[1]);
      }
      for (const name of [...names].sort()) out.push({ name: `${mod.name}/${name}`, source: mod.title });
    } catch (e) {
      if (!(e instanceof ZipError)) throw e; // a broken zip has no scenarios to offer
    } finally {
      await zip?.close();
    }
  }
  return out;
}
