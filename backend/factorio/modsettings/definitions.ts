// The setting definitions of the installed mods: each mod's settings.lua (and the files it requires with a
// literal name) read by the literal-table reader, titles and descriptions from its locale/en/*.cfg.
// Results are cached per mod file (path, size, mtime), so opening the tab again reads nothing.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ModSettingDefinition, ModSettingDefinitions } from "../../../shared/modsettings.ts";
import type { ModDir } from "../mods/moddir.ts";
import { ZipError, ZipReader } from "../../lib/zip.ts";
import { LuaReadError, readLocaleCfg, readSettingsLua } from "./settingslua.ts";

const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** settings.lua and what it requires; more files than any mod's settings stage loads. */
const MAX_FILES = 32;

interface ModFiles {
  /** A file of the mod by its path inside the mod ("settings.lua"), or null when it has none. */
  read(rel: string): Promise<string | null>;
  /** Paths inside the mod under `folder`. */
  list(folder: string): string[];
  close(): Promise<void>;
}

async function zipFiles(path: string): Promise<ModFiles> {
  const zip = await ZipReader.open(path);
  const info = zip.entries.find((e) => /^[^/]+\/info\.json$/.test(e.name));
  const prefix = info ? info.name.slice(0, info.name.indexOf("/") + 1) : "";
  return {
    read: async (rel) => {
      const e = zip.find(prefix + rel);
      return e ? new TextDecoder().decode(await zip.read(e, MAX_FILE_BYTES)) : null;
    },
    list: (folder) =>
      zip.entries.filter((e) => e.name.startsWith(prefix + folder)).map((e) => e.name.slice(prefix.length)),
    close: () => zip.close(),
  };
}

function folderFiles(dir: string): ModFiles {
  return {
    read: (rel) => {
      try {
        if (statSync(join(dir, rel)).size > MAX_FILE_BYTES) return Promise.resolve(null);
        return Promise.resolve(readFileSync(join(dir, rel), "utf8"));
      } catch {
        return Promise.resolve(null);
      }
    },
    list: (folder) => {
      try {
        return readdirSync(join(dir, folder)).map((n) => folder + n);
      } catch {
        return [];
      }
    },
    close: () => Promise.resolve(),
  };
}

/** Definitions of one mod: settings.lua, then the files it requires, breadth first. */
export async function modDefinitions(mod: string, files: ModFiles): Promise<ModSettingDefinition[]> {
  const defs: ModSettingDefinition[] = [];
  const queue = ["settings.lua"];
  const seen = new Set(queue);
  for (let i = 0; i < queue.length && i < MAX_FILES; i++) {
    const src = await files.read(queue[i]);
    if (src === null) continue;
    const found = readSettingsLua(mod, src);
    defs.push(...found.definitions);
    for (const r of found.requires) {
      // "__mod__/x" names another mod's file and "a.b" is a/b.lua: only this mod's files are read.
      if (r.startsWith("__")) continue;
      const rel = r.replace(/\.lua$/, "").replaceAll(".", "/") + ".lua";
      if (rel.includes("..") || seen.has(rel)) continue;
      seen.add(rel);
      queue.push(rel);
    }
  }
  if (defs.length === 0) return defs;
  const names = new Map<string, string>();
  const descriptions = new Map<string, string>();
  for (const rel of files.list("locale/en/").filter((n) => n.endsWith(".cfg"))) {
    const text = await files.read(rel);
    if (text === null) continue;
    const loc = readLocaleCfg(text);
    for (const [k, v] of loc.names) names.set(k, v);
    for (const [k, v] of loc.descriptions) descriptions.set(k, v);
  }
  for (const d of defs) {
    const title = names.get(d.name);
    const description = descriptions.get(d.name);
    if (title) d.title = title;
    if (description) d.description = description;
  }
  return defs;
}

const cache = new Map<string, { key: string; defs: ModSettingDefinition[]; problem: string | null }>();

/** The definitions of every mod installed in `dir` (the version the game loads). */
export async function installedDefinitions(dir: ModDir): Promise<ModSettingDefinitions> {
  const out: ModSettingDefinitions = { definitions: [], problems: [] };
  for (const mod of await dir.list()) {
    if (mod.built_in || mod.error !== null || mod.file_name === "") continue;
    const path = join(dir.dir, mod.file_name);
    let key: string;
    let folder: boolean;
    try {
      const st = statSync(path);
      key = `${st.size}:${st.mtimeMs}`;
      folder = st.isDirectory();
    } catch {
      continue; // removed meanwhile
    }
    let hit = cache.get(path);
    if (!hit || hit.key !== key || folder) {
      let defs: ModSettingDefinition[] = [];
      let problem: string | null = null;
      let files: ModFiles | null = null;
      try {
        files = folder ? folderFiles(path) : await zipFiles(path);
        defs = await modDefinitions(mod.name, files);
      } catch (e) {
        if (!(e instanceof LuaReadError) && !(e instanceof ZipError)) throw e;
        problem = `settings.lua could not be read: ${e.message}`;
      } finally {
        await files?.close();
      }
      hit = { key, defs, problem };
      if (!folder) cache.set(path, hit);
    }
    out.definitions.push(...hit.defs);
    if (hit.problem) out.problems.push({ mod: mod.name, message: hit.problem });
  }
  return out;
}
