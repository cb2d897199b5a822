// A folder of mods as the game reads it: the live mods/ directory, or a mod pack's folder. It lists what
// is there (zips, unpacked folders, the game's built-in mods), and makes every change under one lock per
// folder, so parallel requests ("Update all") cannot lose each other's mod-list.json edits. A zip that
// cannot be read is listed as broken, never fatal.

import { existsSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Mod } from "../../../shared/api.ts";
import { BUILT_IN_MODS, isBuiltInMod } from "../../../shared/factorio.ts";
import { BoundedMap, keptFor, lazyCompare } from "../../../shared/util.ts";
import { modFileName, modFitsGame } from "../../../shared/mods.ts";
import { compareVersionStrings, fourPartVersion } from "../../../shared/versions.ts";
import { Invalid, NotFound } from "../../lib/errors.ts";
import type { FactorioPaths } from "../layout.ts";
import { ModListFile } from "./modlist.ts";
import type { ModPins } from "./pins.ts";
import { ModFileError, type ModInfoJson, parseInfoJson, readModFolder, readModZip } from "./infojson.ts";
import { inside, safeName } from "../paths.ts";
import { FolderCache, stampOf } from "../../lib/foldercache.ts";

/** Mod names sort case-insensitively; one collator (not one per comparison), built on the first sort. */
const byModName = lazyCompare({ sensitivity: "base" });

export const MOD_LIST = "mod-list.json";
export const MOD_SETTINGS = "mod-settings.dat";

/** What the installed game says about itself, read from its data/ folder. */
export interface GameInfo {
  /** The version of data/base/info.json (the old API's base_mod_version); null when unreadable. */
  version(): string | null;
  /** The built-in mods this game ships (data/<name>/info.json), base first; core is not a mod to list. */
  builtIns(): ModInfoJson[];
  /** The files both answers come from, for caches built on them. */
  files: string[];
}

/** The game's info.json files, read again only when one of them (or the data folder) changed. */
export function gameInfo(paths: FactorioPaths): GameInfo {
  const names = BUILT_IN_MODS.filter((n) => n !== "core");
  // A new game (install, update, version switch) always brings a new data/base/info.json: its stamp alone
  // says when to read them all again, one stat per listing instead of one per built-in.
  // paths.data follows the active game version (factorio/versions), so this is asked anew each time.
  // The same array while paths.data is the same (FolderCache takes a new array as new paths).
  const filesOf = keptFor((data: string) => [join(data, "base", "info.json")]);
  const files = () => filesOf(paths.data);
  let cached: { stamp: string; version: string | null; builtIns: ModInfoJson[] } | null = null;
  const read = (name: string): ModInfoJson | null => {
    try {
      return parseInfoJson(readFileSync(join(paths.data, name, "info.json"), "utf8"));
    } catch {
      return null;
    }
  };
  const current = () => {
    const stamp = files().map(stampOf).join("|");
    if (cached?.stamp !== stamp) {
      const all = names.map((n) => [n, read(n)] as const);
      cached = {
        stamp,
        version: all.find(([n]) => n === "base")?.[1]?.version ?? null,
        builtIns: all.map(([, m]) => m).filter((m): m is ModInfoJson => m !== null),
      };
    }
    return cached;
  };
  return {
    version: () => current().version,
    builtIns: () => current().builtIns,
    get files() {
      return files();
    },
  };
}

/** One thing found in a mod folder. */
interface Found {
  /** File or folder name inside the mod folder. */
  file: string;
  path: string;
  folder: boolean;
  info: ModInfoJson | null;
  error: string | null;
}

// info.json of unchanged zips is not read again: a folder of 200 mods lists without opening 200 files.
// Bounded: paths come and go (updates rename zips), and a long-running panel must not keep them all.
const scanCache = new BoundedMap<
  string,
  { mtimeMs: number; ctimeMs: number; ino: number | null; size: number; readAt: number; found: Found }
>(4096);

async function inspect(dir: string, file: string, st: Stats): Promise<Found> {
  const path = join(dir, file);
  const cached = scanCache.get(path);
  // ctime and inode too: a zip replaced by another with the same size and mtime still differs in those.
  // Deno gives ctime in whole seconds, so an entry read within about a second of its ctime is read again.
  if (
    !st.isDirectory() && cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size &&
    cached.ctimeMs === st.ctimeMs && cached.ino === st.ino && cached.readAt - st.ctimeMs > 1100
  ) return cached.found;
  let found: Found;
  const readAt = Date.now();
  try {
    const info = st.isDirectory() ? readModFolder(path) : await readModZip(path);
    found = { file, path, folder: st.isDirectory(), info, error: null };
  } catch (e) {
    if (!(e instanceof ModFileError)) throw e;
    found = { file, path, folder: st.isDirectory(), info: null, error: e.message };
  }
  if (!st.isDirectory()) {
    scanCache.set(path, {
      mtimeMs: st.mtimeMs,
      ctimeMs: st.ctimeMs,
      ino: st.ino,
      size: st.size,
      readAt,
      found,
    });
  }
  return found;
}

const locks = new Map<string, Promise<unknown>>();
/** Listing caches by folder: every change made under the folder's lock drops its listing. */
const listings = new Map<string, FolderCache<unknown>>();

/** Runs `fn` after every earlier change to the same folder has finished. */
export function withLock<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
  const before = locks.get(key) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const tail = run.catch(() => {}).finally(() => listings.get(key)?.invalidate());
  locks.set(key, tail);
  tail.then(() => {
    if (locks.get(key) === tail) locks.delete(key);
  });
  return run;
}

/** A file of a mod folder, for zipping or copying. `name` is relative to the folder ("/"-separated). */
export interface FolderFile {
  name: string;
  path: string;
  size: number;
  mtime: Date;
}

/** A listing of a mod folder, and the same as the JSON the API answers. */
interface ModListing {
  mods: Mod[];
  /** The JSON, encoded once: an unchanged list is neither serialized nor encoded again. */
  /**
   * The listing as JSON text. Text, not bytes: a byte body is copied into a new ArrayBuffer for every
   * response (extractBody), which cost 10-140 µs per request in a process holding many buffers, while
   * Deno encodes a text body in Rust as it sends it.
   */
  json: string;
  /** info.json of unpacked mod folders: the folder watch does not see inside them. */
  folders: string[];
}

export class ModDir {
  /** The admin's pins (the live mods folder only); without it nothing is pinned and pin() is refused. */
  pins?: ModPins;

  private readonly listing: FolderCache<ModListing> | null = null;

  /**
   * `cached`: keep the listing until the folder changes (the live mods folder). A pack's folder is
   * listed afresh each time; it is opened by name per request.
   */
  constructor(readonly dir: string, private readonly game: GameInfo, opts: { cached?: boolean } = {}) {
    if (opts.cached) {
      // mod-list.json and the game's info.json are read from, and left to the watch on their folders
      // (the mods folder, the game's data/base): a stat of each on every request was most of the cost.
      const modList = this.modListPath;
      const contentsOf = keptFor((files: string[]) => [modList, ...files]);
      this.listing = new FolderCache<ModListing>({
        watch: [dir],
        stamps: [dir],
        contents: () => contentsOf(game.files),
        build: () => this.buildListing(),
        extraStamps: (l) => l.folders,
      });
      listings.set(dir, this.listing as FolderCache<unknown>);
    }
  }

  async close(): Promise<void> {
    if (!this.listing) return;
    if (listings.get(this.dir) === this.listing) listings.delete(this.dir);
    await this.listing.close();
  }

  private async buildListing(): Promise<ModListing> {
    const found = await this.scan();
    const mods = this.rows(found);
    return {
      mods,
      json: JSON.stringify(mods),
      folders: found.filter((f) => f.folder).map((f) => join(f.path, "info.json")),
    };
  }

  private listingNow(): Promise<ModListing> {
    return this.listing ? this.listing.get() : this.buildListing();
  }

  /** list() as JSON: at once when the kept listing is current, else once it is built. */
  listJson(): string | Promise<string> {
    const kept = this.listing?.peek();
    return kept ? kept.json : this.listingNow().then((l) => l.json);
  }

  get modListPath(): string {
    return join(this.dir, MOD_LIST);
  }

  get modSettingsPath(): string {
    return join(this.dir, MOD_SETTINGS);
  }

  /** Zips and unpacked mod folders (hidden names are the panel's temp files and are skipped). */
  async scan(): Promise<Found[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    // Every stat (and every changed zip's info.json) in flight at once, not one awaited after another.
    const found = await Promise.all(
      names.sort().map(async (file): Promise<Found | null> => {
        if (file.startsWith(".")) return null;
        let st: Stats;
        try {
          st = await stat(join(this.dir, file));
        } catch {
          return null; // removed meanwhile
        }
        const zip = st.isFile() && file.toLowerCase().endsWith(".zip");
        const folder = st.isDirectory() && existsSync(join(this.dir, file, "info.json"));
        return zip || folder ? await inspect(this.dir, file, st) : null;
      }),
    );
    return found.filter((f): f is Found => f !== null);
  }

  /** The mods of this folder: built-ins first, then by name; one row per mod. */
  async list(): Promise<Mod[]> {
    return (await this.listingNow()).mods;
  }

  private rows(found: Found[]): Mod[] {
    const list = ModListFile.read(this.modListPath, { tolerant: true });
    const gameVersion = this.game.version();
    const pins = this.pins?.all() ?? {};
    const rows: Mod[] = [];
    for (const b of this.game.builtIns()) {
      rows.push({
        name: b.name,
        title: b.title,
        author: b.author,
        version: b.version,
        file_name: "",
        factorio_version: fourPartVersion(b.factorio_version),
        dependencies: b.dependencies,
        compatibility: true,
        enabled: list.enabled(b.name) ?? true,
        built_in: true,
        error: null,
        other_versions: [],
      });
    }
    const byName = new Map<string, Found[]>();
    for (const f of found) {
      if (!f.info) continue;
      const group = byName.get(f.info.name) ?? [];
      group.push(f);
      byName.set(f.info.name, group);
    }
    const mods: Mod[] = [];
    for (const [name, group] of byName) {
      if (isBuiltInMod(name)) continue; // a stray copy of a built-in in mods/: the game uses its own
      group.sort((a, b) => compareVersionStrings(b.info!.version, a.info!.version));
      const pinned = list.pinned(name);
      const active = group.find((f) =>
        pinned !== undefined && compareVersionStrings(f.info!.version, pinned) === 0
      ) ?? group[0];
      const info = active.info!;
      mods.push({
        name,
        title: info.title,
        author: info.author,
        version: info.version,
        file_name: active.file,
        factorio_version: fourPartVersion(info.factorio_version),
        dependencies: info.dependencies,
        compatibility: modFitsGame(gameVersion, info.factorio_version, info.dependencies),
        enabled: list.enabled(name) ?? true,
        built_in: false,
        error: null,
        other_versions: group.filter((f) => f !== active).map((f) => f.info!.version),
        pinned: Object.hasOwn(pins, name),
      });
    }
    for (const f of found) {
      if (f.info) continue;
      mods.push({
        name: f.file,
        title: f.file,
        author: "",
        version: "",
        file_name: f.file,
        factorio_version: "",
        dependencies: null,
        compatibility: false,
        enabled: false,
        built_in: false,
        error: f.error,
        other_versions: [],
      });
    }
    mods.sort((a, b) => byModName(a.name, b.name));
    return [...rows, ...mods];
  }

  /** The row of one mod; NotFound (the old API's text) when it is not here. */
  async get(name: string): Promise<Mod> {
    const mod = (await this.list()).find((m) => m.name === name && m.error === null);
    if (!mod) throw new NotFound(`Could not find mod ${name}`);
    return mod;
  }

  /** Reads mod-list.json for a change; a missing file starts with the game's built-ins, all enabled. */
  private readListForChange(): ModListFile {
    if (existsSync(this.modListPath)) return ModListFile.read(this.modListPath);
    const list = ModListFile.empty();
    for (const b of this.game.builtIns()) list.set(b.name, true);
    return list;
  }

  /** Flips a mod's enabled flag (built-ins included); answers the new state. */
  toggle(name: string): Promise<boolean> {
    return withLock(this.dir, async () => {
      const mod = await this.get(name);
      const list = this.readListForChange();
      list.set(name, !mod.enabled);
      list.write(this.modListPath);
      return !mod.enabled;
    });
  }

  /** Sets several mods' enabled flags at once (built-ins to match a save). */
  setEnabled(changes: { name: string; enabled: boolean }[]): Promise<void> {
    if (changes.length === 0) return Promise.resolve();
    return withLock(this.dir, () => {
      const list = this.readListForChange();
      for (const c of changes) list.set(c.name, c.enabled);
      list.write(this.modListPath);
    });
  }

  /**
   * Pins a mod at the version installed, or unpins it. Built-in mods go with the game's version and
   * cannot be pinned.
   */
  pin(name: string, pinned: boolean): Promise<Mod> {
    if (isBuiltInMod(name)) {
      throw new Invalid(`${name} ships with the game; it changes only with the game's version.`);
    }
    const pins = this.pins;
    if (!pins) throw new Invalid("Mods can be pinned only in the installed mods.");
    return withLock(this.dir, async () => {
      const mod = await this.get(name);
      pins.set(name, pinned ? mod.version : null);
      // The pins file is not among the listing's stamps, and the lock invalidates only once this returns:
      // without this the answer could be the cached listing from before the change (on a slow machine,
      // once that listing is older than the racy window).
      listings.get(this.dir)?.invalidate();
      return await this.get(name);
    });
  }

  /**
   * Deletes a mod: every version of it, and its mod-list.json entry. A broken zip is deleted by its file
   * name (its row's name). Built-in mods cannot be deleted.
   */
  async delete(name: string): Promise<void> {
    if (isBuiltInMod(name)) {
      throw new Invalid(`${name} ships with the game and cannot be deleted; switch it off instead.`);
    }
    await withLock(this.dir, async () => {
      const found = await this.scan();
      const mine = found.filter((f) => f.info?.name === name);
      const broken = found.filter((f) => !f.info && f.file === name);
      if (mine.length === 0 && broken.length === 0) throw new NotFound(`Could not find mod ${name}`);
      if (mine.length > 0) {
        const list = this.readListForChange();
        list.remove(name);
        for (const f of mine) await rm(f.path, { recursive: true, force: true });
        list.write(this.modListPath);
      }
      for (const f of broken) await rm(f.path, { recursive: true, force: true });
    });
  }

  /**
   * Deletes every mod that is not built in. mod-list.json keeps the built-ins' entries (and every other
   * key); mod-settings.dat stays unless `modSettings` is set.
   */
  deleteAll(opts: { modSettings?: boolean } = {}): Promise<void> {
    return withLock(this.dir, async () => {
      const list = this.readListForChange();
      list.retain(isBuiltInMod);
      for (const f of await this.scan()) await rm(f.path, { recursive: true, force: true });
      list.write(this.modListPath);
      if (opts.modSettings) await rm(this.modSettingsPath, { force: true });
    });
  }

  /**
   * Moves a complete, checked temp zip (in this folder) into place as "<name>_<version>.zip", removes
   * the mod's other versions, and makes sure mod-list.json has it (a new mod enabled, a known one as it
   * was). Returns its info.json. On any failure the temp file is removed and nothing else has changed.
   */
  async addZip(tempPath: string, expect?: { name: string; version: string }): Promise<ModInfoJson> {
    try {
      let info: ModInfoJson;
      try {
        info = await readModZip(tempPath);
      } catch (e) {
        if (e instanceof ModFileError) throw new Invalid(`The file is not a Factorio mod: ${e.message}.`);
        throw e;
      }
      if (
        expect && (info.name !== expect.name || compareVersionStrings(info.version, expect.version) !== 0)
      ) {
        throw new Invalid(
          `The download is ${info.name} ${info.version}, not ${expect.name} ${expect.version} as the mod portal said.`,
        );
      }
      if (isBuiltInMod(info.name)) {
        throw new Invalid(`${info.name} ships with the game; it is never installed into the mods folder.`);
      }
      const target = inside(this.dir, safeName(modFileName(info.name, info.version), "Mod file name"));
      return await withLock(this.dir, async () => {
        const list = this.readListForChange();
        const others = (await this.scan()).filter((f) => f.info?.name === info.name && f.path !== target);
        await rename(tempPath, target);
        for (const f of others) await rm(f.path, { recursive: true, force: true });
        list.set(info.name, list.enabled(info.name) ?? true);
        list.unpin(info.name);
        list.write(this.modListPath);
        return info;
      });
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  /**
   * Every file of the folder for a zip or a copy: top-level files (mods, mod-list.json,
   * mod-settings.dat) and the files of unpacked mod folders, without the panel's hidden temp files.
   */
  files(): FolderFile[] {
    const out: FolderFile[] = [];
    const walk = (abs: string, rel: string, depth: number) => {
      let names: string[];
      try {
        names = readdirSync(abs);
      } catch {
        return;
      }
      for (const name of names.sort()) {
        if (name.startsWith(".")) continue;
        const path = join(abs, name);
        let st: Stats;
        try {
          st = statSync(path);
        } catch {
          continue;
        }
        const relName = rel ? `${rel}/${name}` : name;
        if (st.isFile()) out.push({ name: relName, path, size: st.size, mtime: st.mtime });
        else if (st.isDirectory() && (depth > 0 || existsSync(join(path, "info.json")))) {
          walk(path, relName, depth + 1);
        }
      }
    };
    walk(this.dir, "", 0);
    return out;
  }
}
