// Game versions as the panel offers them: what factorio.com has, what is installed, one install at a
// time (progress on the bus, cancellable), switching the active version while the server is stopped
// (with a copy of the save first), deleting, keeping the last N, and the update check. No HTTP here.

import { copyFileSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../../boot/config.ts";
import type { EventBus } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import type { FactorioPaths } from "../layout.ts";
import { Conflict, InstallError, Invalid, Locked, NotFound } from "../../lib/errors.ts";
import { ensureDir } from "../../lib/fsutil.ts";
import type { ServerState } from "../../../shared/api.ts";
import {
  type AvailableVersion,
  type Channel,
  EXACT_VERSION,
  type InstalledVersion,
  type InstallProgress,
  type UpdateInfo,
  type UpdateProgress,
  type VersionsAnswer,
  type VersionsMessage,
} from "../../../shared/factorio-versions.ts";
import { compareVersionStrings } from "../../../shared/versions.ts";
import { PANEL_MSG } from "../../../shared/messages.ts";
import { FactorioCom } from "./factoriocom.ts";
import { installVersion } from "./installer.ts";
import { LatestVersions } from "./latest.ts";
import {
  activeVersion,
  ensureSharedConfig,
  installedVersions,
  removeLeftovers,
  removeVersion,
  setActiveVersion,
  UNMANAGED,
  versionOfGameDir,
  versionsDir,
} from "./store.ts";

/** The available list is asked of factorio.com at most this often. */
const AVAILABLE_CACHE_MS = 10 * 60_000;
/** Copies of saves made before version switches that are kept. */
const SAVE_COPIES_KEPT = 10;

export interface VersionsDeps {
  config: Config;
  paths: FactorioPaths;
  bus: EventBus;
  log: Logger;
  now: () => number;
  serverState: () => ServerState;
  /** Holds the game directory for a change that needs the game stopped (game.whileStopped). */
  whileStopped: <T>(label: string, fn: () => Promise<T>) => Promise<T>;
  /** The first server's check of factorio.com, shared (absent: this service makes and runs its own). */
  latest?: LatestVersions;
  /** The name of another server whose active version is `version` (it must not be deleted), or null. */
  usedElsewhere?: (version: string) => string | null;
  /** Asks the game for its version again after a switch (the status names the active version). */
  refreshGame?: () => Promise<unknown>;
  /**
   * The automatic backup before a version switch (the save about to be loaded, or the newest). Throws to
   * refuse the switch when the backup failed.
   */
  backupBeforeSwitch?: (save: string | null) => Promise<unknown>;
}

export const SWITCH_LABEL = "a game version switch";

interface Job {
  progress: InstallProgress;
  abort: AbortController;
  done: Promise<void>;
}

export class FactorioVersions {
  readonly com: FactorioCom;
  #job: Job | null = null;
  #lastInstall: InstallProgress | null = null;
  #update: UpdateProgress | null = null;
  /** When the server stops, while an update counts down (this.deps.now() time). */
  #stopsAt: number | null = null;
  #available: { at: number; list: AvailableVersion[] } | null = null;
  readonly latest: LatestVersions;
  /** The newest version an "update-available" went out for. */
  #announced: string | null = null;
  /** Set when the check is another server's: this one only listens to it. */
  #unlisten: (() => void) | null = null;

  constructor(private readonly deps: VersionsDeps) {
    this.com = new FactorioCom(deps.config.factorioComUrl);
    removeLeftovers(this.home);
    const onChecked = () => {
      this.#emit({ kind: "changed" });
      const info = this.updateAvailable();
      if (info && info.latest !== this.#announced) {
        this.#announced = info.latest;
        this.#emit({ kind: "update-available", info });
      }
    };
    // Servers share the downloads, and so the one check of factorio.com (the first server's).
    if (deps.latest) {
      this.latest = deps.latest;
      this.#unlisten = deps.latest.listen(onChecked);
    } else {
      this.latest = new LatestVersions(this.com, {
        dataDir: deps.config.dataDir,
        hours: deps.config.factorioUpdateCheckHours,
        now: deps.now,
        log: deps.log,
        onChecked,
      });
    }
    // A version already known at start was announced by an earlier panel process.
    this.#announced = this.updateAvailable()?.latest ?? null;
  }

  /** This server's Factorio directory: its active version's record (versions/active.json) and config. */
  get dir(): string {
    return this.deps.paths.root;
  }

  /** Where the downloaded versions are, shared by every server (the first server's Factorio directory). */
  get home(): string {
    return this.deps.paths.versionsHome;
  }

  close(): void {
    if (this.#unlisten) this.#unlisten();
    else this.latest.close();
    this.#job?.abort.abort();
  }

  // ---- What is there ----

  /** The game installed by hand in --factorio-dir, if there is one. */
  unmanaged(): string | null {
    const binary = this.deps.config.factorioBinary;
    if (binary.startsWith(versionsDir(this.home) + "/") || !existsSync(binary)) return null;
    // The game's folder holds bin/<arch>/factorio: --factorio-dir itself, or the first server's for a
    // server sharing its game.
    return versionOfGameDir(this.dir) ?? versionOfGameDir(dirname(dirname(dirname(binary)))) ?? "unknown";
  }

  /** Whether there is a game to start. */
  gameFound(): boolean {
    return existsSync(this.deps.paths.binary);
  }

  /** The version the game runs (managed or by hand), or null when there is no game. */
  currentVersion(): string | null {
    const active = activeVersion(this.dir);
    if (active) return active.version;
    return this.unmanaged();
  }

  channel(): Channel {
    return activeVersion(this.dir)?.channel ?? "stable";
  }

  installed(): InstalledVersion[] {
    const active = activeVersion(this.dir);
    const list: InstalledVersion[] = installedVersions(this.home).map((version) => ({
      version,
      active: active?.version === version,
      managed: true,
    }));
    const hand = this.unmanaged();
    if (hand) list.push({ version: hand, active: !active, managed: false });
    return list;
  }

  async available(force = false): Promise<AvailableVersion[]> {
    if (!force && this.#available && this.deps.now() - this.#available.at < AVAILABLE_CACHE_MS) {
      return this.#available.list;
    }
    const list = await this.com.available();
    this.#available = { at: this.deps.now(), list };
    return list;
  }

  async answer(): Promise<VersionsAnswer> {
    let available: AvailableVersion[] = [];
    let availableError: string | null = null;
    try {
      available = await this.available();
    } catch (e) {
      availableError = (e as Error).message;
    }
    return {
      installed: this.installed(),
      available,
      install: this.#job?.progress ?? this.#lastInstall,
      update: this.updateProgress,
      updateAvailable: this.updateAvailable(),
      gameFound: this.gameFound(),
      channel: this.channel(),
      availableError,
    };
  }

  // ---- Install ----

  /** "stable", "latest"/"experimental" or an exact version -> an exact version. */
  async resolve(spec: unknown): Promise<string> {
    const text = typeof spec === "string" ? spec.trim() : "";
    if (EXACT_VERSION.test(text)) return text;
    if (text === "stable" || text === "latest" || text === "experimental") {
      const latest = await this.latest.get(true);
      return text === "stable" ? latest.stable : latest.experimental;
    }
    throw new Invalid('The version must be "stable", "latest" or an exact version like 2.0.77.');
  }

  get installing(): InstallProgress | null {
    return this.#job?.progress ?? null;
  }

  /**
   * Starts installing `spec`; answers once it runs (the outcome arrives as "factorio.versions" events and
   * in `done`). The first game installed becomes the active one.
   */
  async install(
    spec: unknown,
    opts: { activate?: boolean; channel?: Channel } = {},
  ): Promise<{ version: string; done: Promise<void> }> {
    if (this.#job) {
      throw new Conflict(
        `Factorio ${this.#job.progress.version} is being installed; wait for it or cancel it.`,
      );
    }
    const version = await this.resolve(spec);
    if (this.#job) {
      throw new Conflict(
        `Factorio ${(this.#job as Job).progress.version} is being installed; wait for it or cancel it.`,
      );
    }
    if (installedVersions(this.home).includes(version)) {
      throw new Conflict(`Factorio ${version} is already installed.`);
    }
    // From the last check to taking the slot nothing may await: two requests must never both pass.
    const word = typeof spec === "string" ? spec.trim() : "";
    const abort = new AbortController();
    const progress: InstallProgress = {
      version,
      phase: "checking",
      received: 0,
      total: null,
      bytesPerSecond: 0,
      etaSeconds: null,
      message: "",
    };
    const job: Job = { progress, abort, done: Promise.resolve() };
    this.#job = job;
    const publish = () => this.#emit({ kind: "install", install: { ...progress } });
    publish();
    job.done = (async () => {
      try {
        const channel = opts.channel ??
          (word === "stable"
            ? "stable"
            : word === "latest" || word === "experimental"
            ? "experimental"
            : await this.#channelOf(version));
        await installVersion({
          factorioDir: this.home,
          com: this.com,
          version,
          arch: this.deps.config.factorioArch,
          signal: abort.signal,
          onPhase: (phase) => {
            progress.phase = phase;
            publish();
          },
          onProgress: (p) => {
            Object.assign(progress, p);
            publish();
          },
        });
        let activated = false;
        if (opts.activate || !this.gameFound()) {
          try {
            await this.deps.whileStopped(SWITCH_LABEL, () => this.#switchTo(version, channel));
            activated = true;
          } catch (e) {
            if (!(e instanceof Locked)) throw e;
          }
        }
        progress.phase = "done";
        progress.message = `Factorio ${version} is installed${activated ? " and active" : ""}.`;
        this.deps.log.info(progress.message);
      } catch (e) {
        progress.phase = abort.signal.aborted ? "cancelled" : "failed";
        progress.message = abort.signal.aborted
          ? `The install of Factorio ${version} was cancelled; nothing was installed.`
          : e instanceof InstallError || e instanceof Error && "status" in e
          ? (e as Error).message
          : `The install of Factorio ${version} failed: ${(e as Error).message}; nothing was installed.`;
        this.deps.log.warn(progress.message);
        throw new InstallError(progress.message);
      } finally {
        this.#lastInstall = { ...progress };
        this.#job = null;
        publish();
        this.#emit({ kind: "changed" });
      }
    })();
    job.done.catch(() => {}); // the outcome is published; callers that await `done` see the error too
    return { version, done: job.done };
  }

  cancel(): string {
    if (!this.#job) throw new Conflict("No install is running.");
    this.#job.abort.abort();
    return `Cancelling the install of Factorio ${this.#job.progress.version}.`;
  }

  // ---- Activate, delete ----

  /** Makes `version` the game's version. Call it holding the game directory (whileStopped). */
  async activate(version: unknown): Promise<string> {
    const v = typeof version === "string" ? version.trim() : "";
    if (this.deps.serverState() !== "stopped") throw new Locked(PANEL_MSG.serverNotStopped);
    if (this.#job) {
      throw new Conflict(
        `Factorio ${this.#job.progress.version} is being installed; wait for it or cancel it.`,
      );
    }
    const row = this.installed().find((r) => r.version === v);
    if (!row) throw new NotFound(`Factorio ${v || "(no version)"} is not installed.`);
    if (row.active) return `Factorio ${v} is already active.`;
    if (row.managed) await this.#switchTo(v, this.#channelOfInstalled(v));
    else await this.#switchToUnmanaged();
    return `Factorio ${v} is now active.`;
  }

  /** Deletes an installed version that is not active. */
  remove(version: unknown): string {
    const v = typeof version === "string" ? version.trim() : "";
    if (this.#job) {
      throw new Conflict(
        `Factorio ${this.#job.progress.version} is being installed; wait for it or cancel it.`,
      );
    }
    const row = this.installed().find((r) => r.version === v && r.managed) ?? null;
    if (!row) {
      if (this.unmanaged() === v) {
        throw new Invalid(
          `Factorio ${v} was installed by hand in ${this.dir}; the panel does not delete it.`,
        );
      }
      throw new NotFound(`Factorio ${v || "(no version)"} is not installed.`);
    }
    if (row.active) {
      throw new Conflict(`Factorio ${v} is the active version; activate another one before deleting it.`);
    }
    const user = this.deps.usedElsewhere?.(v);
    if (user) throw new Conflict(`Factorio ${v} is the active version of the server "${user}".`);
    removeVersion(this.home, v);
    this.deps.log.info("Deleted a game version", { version: v });
    this.#emit({ kind: "changed" });
    return `Factorio ${v} was deleted.`;
  }

  /** Switches to a managed version: a copy of the newest save first, then the marker, then old versions pruned. */
  async #switchTo(
    version: string,
    channel: Channel,
    save: string | null = null,
    backup = true,
  ): Promise<void> {
    // Not before a rollback: nothing may stand in the way of getting the old version running again.
    if (backup) await this.deps.backupBeforeSwitch?.(save);
    const before = activeVersion(this.dir);
    const from = before?.version ?? this.unmanaged();
    this.copySave(save, from, version);
    ensureSharedConfig(this.dir);
    setActiveVersion(this.dir, { version, channel, previous: before?.version ?? (from ? UNMANAGED : "") });
    this.deps.log.info("Switched the game version", { from, to: version });
    this.#prune();
    await this.#switched();
  }

  async #switchToUnmanaged(): Promise<void> {
    await this.deps.backupBeforeSwitch?.(null);
    const before = activeVersion(this.dir);
    this.copySave(null, before?.version ?? null, this.unmanaged() ?? "");
    setActiveVersion(this.dir, null);
    this.deps.log.info("Switched back to the game installed by hand", { from: before?.version });
    await this.#switched();
  }

  /** After a switch: the game's version is asked again before anyone hears of the change. */
  async #switched(): Promise<void> {
    try {
      await this.deps.refreshGame?.();
    } finally {
      this.#emit({ kind: "changed" });
    }
  }

  /** Switches back after a failed update (server stopped). */
  async switchBack(previous: string, save: string | null): Promise<void> {
    if (previous === UNMANAGED || previous === "") {
      this.copySave(save, activeVersion(this.dir)?.version ?? null, this.unmanaged() ?? "");
      setActiveVersion(this.dir, null);
      await this.#switched();
    } else await this.#switchTo(previous, this.#channelOfInstalled(previous), save, false);
  }

  /** Switches to an installed version for an update (server stopped). */
  switchForUpdate(version: string, save: string | null): Promise<void> {
    return this.#switchTo(version, this.channel(), save);
  }

  /** Keeps the active version, the one before it, then the newest, up to --factorio-keep-versions. */
  #prune(): void {
    const active = activeVersion(this.dir);
    const all = installedVersions(this.home);
    const order = [active?.version, active?.previous, ...all].filter((v): v is string =>
      !!v && all.includes(v)
    );
    const keep = new Set([...new Set(order)].slice(0, Math.max(1, this.deps.config.factorioKeepVersions)));
    for (const v of all) {
      if (keep.has(v) || this.deps.usedElsewhere?.(v)) continue;
      removeVersion(this.home, v);
      this.deps.log.info("Deleted an old game version (keeping the last ones)", { version: v });
    }
  }

  /**
   * Keeps a copy of a save before the game version changes (a newer game rewrites the save in its own
   * format at its next save). `save` is a file name in saves/; null means the newest save.
   */
  copySave(save: string | null, from: string | null, to: string): string | null {
    const saves = this.deps.paths.saves;
    let name = save;
    if (!name) {
      try {
        const zips = readdirSync(saves).filter((n) => n.endsWith(".zip") && !n.startsWith("."));
        name = zips.sort((a, b) => statSync(join(saves, b)).mtimeMs - statSync(join(saves, a)).mtimeMs)[0] ??
          null;
      } catch {
        name = null;
      }
    }
    if (!name || !existsSync(join(saves, name))) return null;
    const dir = join(this.deps.config.dataDir, "save-copies");
    ensureDir(dir);
    const stamp = new Date(this.deps.now()).toISOString().replace(/[:.]/g, "-");
    const copy = join(dir, `${stamp}_${from ?? "none"}-to-${to}_${name}`);
    copyFileSync(join(saves, name), copy);
    const copies = readdirSync(dir).sort();
    for (const old of copies.slice(0, Math.max(0, copies.length - SAVE_COPIES_KEPT))) {
      rmSync(join(dir, old), { force: true });
    }
    this.deps.log.info("Kept a copy of the save before switching the game version", { save: name, copy });
    return copy;
  }

  // ---- Updates ----

  /** Asks factorio.com for the newest versions (cached for --factorio-update-check-hours unless forced). */
  async checkUpdate(force: boolean): Promise<UpdateInfo | null> {
    await this.latest.get(force);
    return this.updateAvailable();
  }

  /** A newer version of the active channel, from the last check. */
  updateAvailable(): UpdateInfo | null {
    const current = this.currentVersion();
    const known = this.latest.known;
    if (!known || !current || !EXACT_VERSION.test(current)) return null;
    const channel = this.channel();
    const latest = known.latest[channel];
    if (compareVersionStrings(latest, current) <= 0) return null;
    return { channel, current, latest, checkedAt: new Date(known.checkedAt).toISOString() };
  }

  /**
   * Publishes an update's progress. While it counts down (`secondsLeft`), the stop's time is kept, so every
   * later answer and replay says how long is left then, not what was left at the last warning.
   */
  setUpdateProgress(p: UpdateProgress | null): void {
    this.#update = p;
    this.#stopsAt = p?.secondsLeft != null ? this.deps.now() + p.secondsLeft * 1000 : null;
    if (p) this.#emit({ kind: "update", update: p });
  }

  get updateProgress(): UpdateProgress | null {
    const p = this.#update;
    if (!p || this.#stopsAt === null) return p;
    return { ...p, secondsLeft: Math.max(0, Math.ceil((this.#stopsAt - this.deps.now()) / 1000)) };
  }

  async #channelOf(version: string): Promise<Channel> {
    try {
      return (await this.available()).find((v) => v.version === version)?.channel ?? "stable";
    } catch {
      return "stable";
    }
  }

  #channelOfInstalled(version: string): Channel {
    return this.#available?.list.find((v) => v.version === version)?.channel ?? this.channel();
  }

  #emit(message: VersionsMessage): void {
    this.deps.bus.emit("factorio.versions", message);
  }
}
