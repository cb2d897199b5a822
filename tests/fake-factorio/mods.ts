// Which mods the simulated game loads, worked out the way the game does: mod-list.json in the mod
// directory (created with the defaults when missing), zips found there (new ones enabled, as with the
// default enable-new-mods=true), and the built-in mods in data/ (base always; on 2.x the expansion mods
// unless mod-list.json disables them).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ZipReader } from "../../backend/lib/zip.ts";
import { writeFileAtomic } from "../../backend/lib/fsutil.ts";
import type { HeaderMod } from "./savefile.ts";
import {
  decodeModSettings,
  encodeModSettings,
  PropertyTreeError,
} from "../../backend/factorio/modsettings/propertytree.ts";

interface ListEntry {
  name: string;
  enabled: boolean;
  version?: string;
  [key: string]: unknown;
}

export class ModError extends Error {}

/** Built-in mods present in data/ (each a folder with info.json), with their versions. */
function builtIns(dataDir: string): HeaderMod[] {
  if (!existsSync(dataDir)) return [];
  const out: HeaderMod[] = [];
  for (const name of readdirSync(dataDir)) {
    if (name === "core") continue;
    const info = join(dataDir, name, "info.json");
    if (!existsSync(info)) continue;
    const parsed = JSON.parse(readFileSync(info, "utf8"));
    out.push({ name: parsed.name ?? name, version: String(parsed.version) });
  }
  return out;
}

async function zipMods(modDir: string): Promise<Map<string, HeaderMod[]>> {
  const found = new Map<string, HeaderMod[]>();
  if (!existsSync(modDir)) return found;
  for (const file of readdirSync(modDir).sort()) {
    if (!file.toLowerCase().endsWith(".zip") || file.startsWith(".")) continue;
    let info: { name?: unknown; version?: unknown };
    try {
      const zip = await ZipReader.open(join(modDir, file));
      try {
        const entry = zip.find("info.json", true);
        if (!entry) throw new Error("info.json not found");
        info = JSON.parse(new TextDecoder().decode(await zip.read(entry, 1 << 20)));
      } finally {
        await zip.close();
      }
    } catch (e) {
      throw new ModError(`Mod ${file}: ${(e as Error).message}`);
    }
    if (typeof info.name !== "string" || typeof info.version !== "string") {
      throw new ModError(`Mod ${file}: info.json has no name or version`);
    }
    const list = found.get(info.name) ?? [];
    list.push({ name: info.name, version: info.version });
    found.set(info.name, list);
  }
  return found;
}

function newest(a: HeaderMod, b: HeaderMod): HeaderMod {
  const pa = a.version.split(".").map(Number);
  const pb = b.version.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0) ? a : b;
  return a;
}

/**
 * The enabled mods, base first, then by name (case-insensitive, the game's load order for mods without
 * dependencies between them). Writes mod-list.json when it was missing or lacked a mod that is present.
 */
export async function enabledMods(modDir: string, dataDir: string): Promise<HeaderMod[]> {
  const listPath = join(modDir, "mod-list.json");
  let entries: ListEntry[] = [];
  let changed = false;
  if (existsSync(listPath)) {
    try {
      const parsed = JSON.parse(readFileSync(listPath, "utf8"));
      if (!Array.isArray(parsed?.mods)) throw new Error("no mods array");
      entries = parsed.mods;
    } catch (e) {
      throw new ModError(`Failed to parse ${listPath}: ${(e as Error).message}`);
    }
  } else changed = true;

  const builtIn = builtIns(dataDir);
  const zips = await zipMods(modDir);
  for (const name of [...builtIn.map((m) => m.name), ...zips.keys()]) {
    if (!entries.some((e) => e.name === name)) {
      entries.push({ name, enabled: true });
      changed = true;
    }
  }
  if (changed && existsSync(modDir)) {
    writeFileAtomic(listPath, JSON.stringify({ mods: entries }, null, 2) + "\n");
  }

  const out: HeaderMod[] = [];
  for (const entry of entries) {
    if (!entry.enabled && entry.name !== "base") continue;
    const b = builtIn.find((m) => m.name === entry.name);
    if (b) {
      out.push(b);
      continue;
    }
    const versions = zips.get(entry.name);
    if (!versions) continue; // enabled but not installed: the game skips it
    const pinned = entry.version ? versions.find((v) => v.version === entry.version) : undefined;
    out.push(pinned ?? versions.reduce(newest));
  }
  return out.sort((a, b) =>
    a.name === "base" ? -1 : b.name === "base" ? 1 : a.name.toLowerCase().localeCompare(b.name.toLowerCase())
  );
}

/**
 * mod-settings.dat as the game treats it at start-up: read (a file it cannot read is an error that stops
 * the load, so a panel that wrote a bad file is caught), then written back with this game's version in the
 * header, as the game rewrites the file it loaded. A missing file stays missing. Answers how many settings
 * each section holds, or null when there is no file.
 */
export function loadModSettings(modDir: string, version: string): Record<string, number> | null {
  const path = join(modDir, "mod-settings.dat");
  if (!existsSync(path)) return null;
  let file;
  try {
    file = decodeModSettings(readFileSync(path));
  } catch (e) {
    if (e instanceof PropertyTreeError) {
      throw new ModError(`Failed to load mod settings from ${path}: ${e.message}`);
    }
    throw e;
  }
  const [major, minor, patch] = version.split(".").map(Number);
  file.version = [major, minor, patch, 0];
  writeFileAtomic(path, encodeModSettings(file));
  const counts: Record<string, number> = {};
  if (file.tree.type === "dict") {
    for (const s of file.tree.entries) {
      counts[s.key ?? ""] = s.value.type === "dict" ? s.value.entries.length : 0;
    }
  }
  return counts;
}
