// Mod packs: named copies of a mods folder (zips, mod-list.json, mod-settings.dat) under
// <data-dir>/mod-packs/<name>/. Creating and loading a pack build the new folder beside its target and
// rename it into place, so a failure half way leaves the old state as it was.

import { existsSync, readdirSync, statSync } from "node:fs";
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import type { ModPack } from "../../../shared/api.ts";
import { Conflict, NotFound } from "../../lib/errors.ts";
import { ensureDir } from "../../lib/fsutil.ts";
import { type GameInfo, MOD_SETTINGS, ModDir, withLock } from "./moddir.ts";
import { inside, safeName } from "../paths.ts";

/** Mod pack names follow the rules of save names (one plain file name). */
export function packName(input: unknown): string {
  return safeName(input, "Mod pack name");
}

/** Copies the files of `from` into the new folder `to` (which must not exist). */
async function copyFolder(from: ModDir, to: string): Promise<void> {
  await mkdir(to, { recursive: false, mode: 0o755 });
  for (const f of from.files()) {
    const target = join(to, ...f.name.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(f.path, target);
  }
}

function stagingPath(beside: string, what: string): string {
  return join(dirname(beside), `.${basename(beside)}.${what}-${randomBytes(6).toString("hex")}`);
}

export class ModPacks {
  constructor(readonly root: string, private readonly game: GameInfo) {}

  /**
   * Adds a pack copied from a folder outside the panel (an import): every regular file in it, built beside
   * the packs and renamed into place. A pack of that name already there is left as it is (false).
   */
  async importFolder(name: unknown, from: string): Promise<boolean> {
    const pack = packName(name);
    ensureDir(this.root);
    const target = inside(this.root, pack);
    return await withLock(target, async () => {
      if (existsSync(target)) return false;
      const stage = stagingPath(target, "import");
      try {
        await mkdir(stage, { mode: 0o755 });
        const walk = async (dir: string, into: string) => {
          for (const e of readdirSync(dir, { withFileTypes: true })) {
            if (e.name.startsWith(".")) continue;
            if (e.isDirectory()) {
              await mkdir(join(into, e.name));
              await walk(join(dir, e.name), join(into, e.name));
            } else if (e.isFile()) await copyFile(join(dir, e.name), join(into, e.name));
          }
        };
        await walk(from, stage);
        await rename(stage, target);
        return true;
      } catch (e) {
        await rm(stage, { recursive: true, force: true });
        throw e;
      }
    });
  }

  names(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return [];
    }
    return names
      .filter((n) =>
        !n.startsWith(".") && statSync(join(this.root, n), { throwIfNoEntry: false })?.isDirectory()
      )
      .sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" }));
  }

  /** The folder of an existing pack; NotFound otherwise. */
  pack(name: unknown): ModDir {
    const checked = packName(name);
    const path = inside(this.root, checked);
    if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
      throw new NotFound(`There is no mod pack named ${checked}.`);
    }
    return new ModDir(path, this.game);
  }

  async list(): Promise<ModPack[]> {
    const packs: ModPack[] = [];
    for (const name of this.names()) {
      packs.push({ name, mods: { mods: await new ModDir(join(this.root, name), this.game).list() } });
    }
    return packs;
  }

  /** A new pack holding a copy of what `from` (the installed mods) has now. */
  async create(name: unknown, from: ModDir): Promise<string> {
    const checked = packName(name);
    ensureDir(this.root);
    const target = inside(this.root, checked);
    await withLock(this.root, async () => {
      if (existsSync(target)) {
        throw new Conflict(`A mod pack named ${checked} already exists. Choose another name.`);
      }
      const stage = stagingPath(target, "new");
      try {
        await copyFolder(from, stage);
        await rename(stage, target);
      } finally {
        await rm(stage, { recursive: true, force: true });
      }
    });
    return checked;
  }

  async delete(name: unknown): Promise<string> {
    const pack = this.pack(name);
    await withLock(pack.dir, () => rm(pack.dir, { recursive: true, force: true }));
    return basename(pack.dir);
  }

  /**
   * Replaces the mods of `live` with the pack's. The installed mod-settings.dat stays when the pack has
   * none (the game ignores settings of mods that are not there).
   */
  async load(name: unknown, live: ModDir): Promise<ModDir> {
    const pack = this.pack(name);
    await withLock(live.dir, async () => {
      const stage = stagingPath(live.dir, "load");
      const old = stagingPath(live.dir, "old");
      try {
        await copyFolder(pack, stage);
        if (!existsSync(join(stage, MOD_SETTINGS)) && existsSync(live.modSettingsPath)) {
          await copyFile(live.modSettingsPath, join(stage, MOD_SETTINGS));
        }
        const hadLive = existsSync(live.dir);
        if (hadLive) await rename(live.dir, old);
        try {
          await rename(stage, live.dir);
        } catch (e) {
          if (hadLive) await rename(old, live.dir);
          throw e;
        }
      } finally {
        await rm(stage, { recursive: true, force: true });
        await rm(old, { recursive: true, force: true });
      }
    });
    return pack;
  }
}
