// What the Mods page does, in terms of the mod folders and the portal: install a release (with the mods
// it requires), install a save's mods, find updates. Works the same on the live mods folder and on a
// mod pack's folder.

import type {
  InstallMultipleResult,
  InstallResult,
  MissingDependency,
  Mod,
  ModUpdate,
  PortalModInfo,
  WantedMod,
} from "../../../shared/api.ts";
import { isBuiltInMod } from "../../../shared/factorio.ts";
import { isRequired, meetsDependency, modFileName, parseDependency } from "../../../shared/mods.ts";
import {
  compareVersionStrings,
  factorioVersionFits,
  fourPartVersion,
  newestFirst,
  newestUpdate,
  parseVersion,
} from "../../../shared/versions.ts";
import { Conflict, HttpError, Invalid, NotFound, TooManyRequests, Upstream } from "../../lib/errors.ts";
import type { Logger } from "../../lib/log.ts";
import type { FactorioPaths } from "../layout.ts";
import { type GameInfo, gameInfo, ModDir } from "./moddir.ts";
import { ModPacks } from "./packs.ts";
import type { ModInfoJson } from "./infojson.ts";
import { isModName } from "./infojson.ts";
import { ModPortal, type RawRelease } from "./portal.ts";

/** How many portal requests an update check has in flight at once. */
const PARALLEL_LOOKUPS = 4;
/** A save lists at most a few hundred mods; anything far beyond that is not a save's list. */
const MAX_WANTED = 2000;

export class ModManager {
  readonly game: GameInfo;
  readonly live: ModDir;
  readonly packs: ModPacks;

  constructor(
    paths: FactorioPaths,
    packsRoot: string,
    readonly portal: ModPortal,
    private readonly log: Logger,
  ) {
    this.game = gameInfo(paths);
    this.live = new ModDir(paths.mods, this.game, { cached: true });
    this.packs = new ModPacks(packsRoot, this.game);
  }

  close(): Promise<void> {
    return this.live.close();
  }

  /** GET /api/mods/portal/info/{name}: the portal's details, releases newest first, versions four-part. */
  async portalInfo(name: unknown): Promise<PortalModInfo> {
    const checked = this.checkName(name);
    // The game's own mods are not on the portal: a valid record with no releases, without asking it
    // (the old UI asks for every listed mod and showed an error for each built-in one).
    if (isBuiltInMod(checked)) {
      return {
        name: checked,
        title: checked,
        owner: "Wube Software",
        summary: "Ships with the game.",
        downloads_count: 0,
        releases: [],
      };
    }
    const mod = await this.portal.details(checked);
    const game = this.game.version() ?? "";
    return {
      name: mod.name,
      title: mod.title,
      owner: mod.owner,
      summary: mod.summary,
      downloads_count: mod.downloads_count,
      releases: newestFirst(mod.releases).map((r) => ({
        ...r,
        version: fourPartVersion(r.version),
        info_json: { ...r.info_json, factorio_version: fourPartVersion(r.info_json.factorio_version) },
        compatibility: factorioVersionFits(game, r.info_json.factorio_version),
      })),
    };
  }

  private checkName(name: unknown): string {
    if (!isModName(name)) throw new Invalid("modName must be the name of a mod.");
    return name;
  }

  /** Downloads one release into `dir` and puts it in place. */
  private async fetchRelease(dir: ModDir, name: string, release: RawRelease): Promise<ModInfoJson> {
    const temp = await this.portal.download(name, release, dir.dir);
    const info = await dir.addZip(temp, { name, version: release.version });
    this.log.info("Installed a mod from the portal", { name, version: info.version, dir: dir.dir });
    return info;
  }

  /**
   * The release of `modName` whose download path is `downloadUrl`. The path is checked before anything is
   * asked of the portal, and must be one the portal itself lists for that mod: a client cannot make the
   * panel fetch anything else.
   */
  private async releaseFor(
    modName: unknown,
    downloadUrl: unknown,
  ): Promise<{ name: string; release: RawRelease }> {
    const name = this.checkName(modName);
    this.portal.downloadUrl(downloadUrl);
    const details = await this.portal.details(name);
    const release = details.releases.find((r) => r.download_url === downloadUrl);
    if (!release) throw new Invalid(`That download is not a release of ${name} on the mod portal.`);
    return { name, release };
  }

  /**
   * POST /api/mods/portal/install: the release, then each required dependency that is missing (or too
   * old): the newest release that fits the game and the dependency's version condition. Optional,
   * incompatible and built-in dependencies are skipped.
   */
  async install(dir: ModDir, modName: unknown, downloadUrl: unknown): Promise<InstallResult> {
    const { name, release } = await this.releaseFor(modName, downloadUrl);
    const info = await this.fetchRelease(dir, name, release);
    const { added, missing } = await this.installDependencies(dir, info);
    return { mods: await dir.list(), dependencies_added: added, dependencies_missing: missing };
  }

  /** POST /api/mods/update: like install, for a mod that is there already; answers its new row. */
  async update(dir: ModDir, modName: unknown, downloadUrl: unknown): Promise<Mod> {
    const name = this.checkName(modName);
    const current = await dir.get(name);
    if (current.pinned) throw new Conflict(`${name} is pinned at ${current.version}; unpin it to update it.`);
    const { release } = await this.releaseFor(name, downloadUrl);
    const info = await this.fetchRelease(dir, name, release);
    await this.installDependencies(dir, info);
    return await dir.get(name);
  }

  private async installDependencies(
    dir: ModDir,
    root: ModInfoJson,
  ): Promise<{ added: string[]; missing: MissingDependency[] }> {
    const game = this.game.version() ?? "";
    const added: string[] = [];
    const missing: MissingDependency[] = [];
    const seen = new Set([root.name]);
    const queue = [...root.dependencies];
    while (queue.length > 0) {
      const dep = parseDependency(queue.shift());
      if (!dep || !isRequired(dep) || isBuiltInMod(dep.name) || seen.has(dep.name)) continue;
      seen.add(dep.name);
      const installed = (await dir.list()).find((m) => m.name === dep.name && m.error === null);
      if (installed && meetsDependency(dep, installed.version)) continue;
      try {
        const details = await this.portal.details(dep.name);
        const fitting = details.releases.filter(
          (r) => factorioVersionFits(game, r.info_json.factorio_version) && meetsDependency(dep, r.version),
        );
        const best = newestFirst(fitting)[0];
        if (!best) {
          const condition = dep.op ? ` ${dep.op} ${dep.version}` : "";
          missing.push({
            name: dep.name,
            reason: `no release${condition} for this Factorio version on the mod portal`,
          });
          continue;
        }
        const info = await this.fetchRelease(dir, dep.name, best);
        added.push(dep.name);
        queue.push(...info.dependencies);
      } catch (e) {
        if (e instanceof NotFound) missing.push({ name: dep.name, reason: "not on the mod portal" });
        else if (e instanceof HttpError) missing.push({ name: dep.name, reason: e.message });
        else throw e;
      }
    }
    return { added, missing };
  }

  /**
   * POST /api/mods/portal/install/multiple (Load Mod from Save): the save's mods in the save's versions.
   * Built-in mods are not downloaded: those of the save are switched on and the game's others off, so a
   * game without Space Age loads as such. Mods already there in that version stay; every mod of the save
   * ends up enabled. A mod that cannot be had is reported and the others still go ahead.
   */
  async installMultiple(dir: ModDir, body: unknown): Promise<InstallMultipleResult> {
    const wanted = parseWanted(body);
    const result: InstallMultipleResult = { mods: [], installed: [], present: [], toggled: [], failed: [] };
    const builtIns = new Set(this.game.builtIns().map((b) => b.name));
    const saveBuiltIns = wanted.filter((w) => isBuiltInMod(w.name) || w.built_in);
    for (const w of saveBuiltIns) {
      if (!builtIns.has(w.name) && w.name !== "core") {
        result.failed.push({
          name: w.name,
          version: w.version,
          reason: "built into a Factorio version other than this one",
        });
      }
    }
    for (const name of builtIns) {
      if (name === "base") continue;
      result.toggled.push({ name, enabled: saveBuiltIns.some((w) => w.name === name) });
    }
    const enable: string[] = [];
    const installed = await dir.list();
    // Why the portal could not be asked (unreachable, or failing after its retries): the mods after that
    // are not looked up, as each would wait out the same retries (~2 min), and fail for the same reason.
    let portalDown: string | null = null;
    for (const w of wanted) {
      if (isBuiltInMod(w.name) || w.built_in) continue;
      const have = installed.find((m) => m.name === w.name && m.error === null);
      if (have && compareVersionStrings(have.version, w.version) === 0) {
        result.present.push(w.name);
        enable.push(w.name);
        continue;
      }
      if (portalDown !== null) {
        result.failed.push({ name: w.name, version: w.version, reason: portalDown });
        continue;
      }
      try {
        const details = await this.portal.details(w.name).catch((e) => {
          if (e instanceof Upstream) portalDown = e.message;
          throw e;
        });
        const release = details.releases.find((r) => compareVersionStrings(r.version, w.version) === 0);
        if (!release) {
          result.failed.push({
            name: w.name,
            version: w.version,
            reason: `version ${w.version} is not on the mod portal`,
          });
          continue;
        }
        await this.fetchRelease(dir, w.name, release);
        result.installed.push(w.name);
        enable.push(w.name);
      } catch (e) {
        if (!(e instanceof HttpError)) throw e;
        // Without a login or with a refused token every further download fails the same way.
        if (e.status === 403 || e.status === 409 || e.status === 429) throw e;
        const reason = e instanceof NotFound ? "not on the mod portal" : e.message;
        result.failed.push({ name: w.name, version: w.version, reason });
      }
    }
    await dir.setEnabled([...result.toggled, ...enable.map((name) => ({ name, enabled: true }))]);
    result.mods = await dir.list();
    return result;
  }

  /** GET /api/mods/updates (and per pack): each mod with a newer release that fits the game. */
  async updates(dir: ModDir): Promise<ModUpdate[]> {
    const game = this.game.version();
    if (!game) return [];
    // Pinned mods stay at their version: no badge, nothing for "Update all" or a scheduled update to take.
    const mods = (await dir.list()).filter((m) => !m.built_in && m.error === null && !m.pinned);
    const updates: ModUpdate[] = [];
    const errors: unknown[] = [];
    let next = 0;
    // The portal unreachable, failing or rate limiting fails every lookup alike: the first such failure
    // is the answer at once, and no further lookup starts. One by one, each lookup waited out its own
    // retries (~2 min against a portal that does not answer), and 300 mods held the request, and the
    // browser's connection with it, for hours.
    let down: unknown = null;
    const stopped = Promise.withResolvers<never>();
    stopped.promise.catch(() => {});
    const worker = async () => {
      while (next < mods.length && down === null) {
        const mod = mods[next++];
        try {
          const details = await this.portal.details(mod.name);
          const releases = details.releases.map((r) => ({
            ...r,
            factorio_version: r.info_json.factorio_version,
          }));
          const best = newestUpdate(mod.version, releases, game);
          if (best) {
            updates.push({
              modName: mod.name,
              downloadUrl: best.download_url,
              fileName: modFileName(mod.name, best.version),
              current: mod.version,
              version: best.version,
            });
          }
        } catch (e) {
          if (e instanceof Upstream || e instanceof TooManyRequests) {
            if (down === null) {
              down = e;
              stopped.reject(e);
            }
          } else if (!(e instanceof NotFound)) errors.push(e); // a mod that is not on the portal has no updates
        }
      }
    };
    await Promise.race([Promise.all(Array.from({ length: PARALLEL_LOOKUPS }, worker)), stopped.promise]);
    // If the portal could not be asked at all, say so instead of claiming there are no updates.
    if (errors.length > 0 && updates.length === 0) throw errors[0];
    return updates.sort((a, b) => a.modName.localeCompare(b.modName));
  }
}

function parseWanted(body: unknown): WantedMod[] {
  if (!Array.isArray(body)) {
    throw new Invalid("The request body must be the list of mods of a save: [{name, version}, ...].");
  }
  if (body.length > MAX_WANTED) throw new Invalid(`At most ${MAX_WANTED} mods at once.`);
  const seen = new Set<string>();
  const wanted: WantedMod[] = [];
  for (const item of body) {
    const o = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (!isModName(o.name) || typeof o.version !== "string" || !parseVersion(o.version)) {
      throw new Invalid(
        'Every mod needs a name and a version, e.g. {"name": "belt-balancer", "version": "3.0.0"}.',
      );
    }
    if (seen.has(o.name)) continue;
    seen.add(o.name);
    wanted.push({ name: o.name, version: o.version, built_in: o.built_in === true });
  }
  return wanted;
}
