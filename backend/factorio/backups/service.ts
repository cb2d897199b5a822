// Backups: make one (asking a running game to save first), list, lock, delete, apply retention, and the
// remembered settings. Restoring lives in restore.ts. Nothing here queues: the callers run game-touching
// work through the game operations queue (factorio/game/ops.ts), so a backup never overlaps a stop.

import { existsSync, readFileSync, statSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Db } from "../../store/db.ts";
import type { Logger } from "../../lib/log.ts";
import type { EventBus } from "../../lib/events.ts";
import type { FactorioPaths } from "../layout.ts";
import type { GameControl } from "../game/control.ts";
import { inside, saveFileName } from "../paths.ts";
import { readSaveHeader } from "../saves/header.ts";
import { saveNow } from "../game/savenow.ts";
import { isListedSave } from "../saves/service.ts";
import { Conflict, HttpError, Invalid, isNoSpace, NotFound } from "../../lib/errors.ts";
import { PANEL_MSG } from "../../../shared/messages.ts";
import { diskSpace, ensureDir, writeJsonAtomic } from "../../lib/fsutil.ts";
import { LOAD_LATEST } from "../../../shared/api.ts";
import { formatVersion, parseVersion } from "../../../shared/versions.ts";
import {
  type Backup,
  BACKUP_INCLUDES,
  BACKUP_REASONS,
  type BackupInclude,
  type BackupReason,
  type BackupSettings,
  DEFAULT_BACKUP_SETTINGS,
  INCLUDE_INVALID,
  type RetentionRule,
} from "../../../shared/backups.ts";
import { type BackupPart, filesUnder, writeBackup } from "./archive.ts";
import { BackupIndex, type IndexedBackup } from "./index.ts";
import { expiredByRules, expiredBySpace } from "./retention.ts";

export interface BackupsDeps {
  dir: string;
  dataDir: string;
  paths: FactorioPaths;
  db: Db;
  log: Logger;
  bus: EventBus;
  game: Pick<GameControl, "status" | "rcon"> & { versionInfo(): Promise<{ version: string }> };
  /** How long a running game may take to save before the backup fails. */
  saveTimeoutMs: number;
  now: () => number;
  /** Free bytes in a folder (tests replace it to stand for a full disk). */
  freeBytes?: (dir: string) => number | Promise<number>;
  /** A push alert (a failed backup, space running out). */
  alert: (title: string, body: string) => void;
}

export interface CreateOptions {
  reason: BackupReason;
  include?: BackupInclude[];
  /** A save to back up; by default the one the server runs, or last ran, or the newest. */
  save?: string;
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

async function freeBytesOf(dir: string): Promise<number> {
  return (await diskSpace(dir)).free;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "").replace(/:/g, "-").replace("T", "_");
}

const RULE_KEYS = ["keep_last", "keep_days"];
const SETTING_KEYS: (keyof BackupSettings)[] = ["include", "retention", "by_reason", "min_free_mb"];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** One retention rule; anything but {keep_last, keep_days} is refused (a string used to mean "no limits"). */
function checkRule(v: unknown, what: string): RetentionRule {
  if (!isObject(v)) throw new Invalid(`${what} must be an object like {"keep_last": 20, "keep_days": null}.`);
  const unknown = Object.keys(v).find((k) => !RULE_KEYS.includes(k));
  if (unknown !== undefined) {
    throw new Invalid(`${what}: "${unknown}" is not a setting; a rule has keep_last and keep_days.`);
  }
  const num = (x: unknown, name: string, max: number) => {
    if (x === null || x === undefined || x === "") return null;
    if (typeof x !== "number" || !Number.isInteger(x) || x < 1 || x > max) {
      throw new Invalid(`${what}: ${name} must be a whole number from 1 to ${max}, or empty for no limit.`);
    }
    return x;
  };
  return {
    keep_last: num(v.keep_last, "keep the last", 100_000),
    keep_days: num(v.keep_days, "keep days", 36_500),
  };
}

export function checkIncludes(v: unknown): BackupInclude[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((i) => !BACKUP_INCLUDES.includes(i))) {
    throw new Invalid(INCLUDE_INVALID);
  }
  return [...new Set(v as BackupInclude[])];
}

export class Backups {
  readonly index: BackupIndex;
  readonly ready: Promise<void>;
  #settingsFile: string;

  constructor(readonly deps: BackupsDeps) {
    ensureDir(deps.dir, 0o700);
    this.index = new BackupIndex(deps.db, deps.log);
    this.#settingsFile = join(deps.dataDir, "backups.json");
    this.ready = this.index.repair(deps.dir);
  }

  get dir(): string {
    return this.deps.dir;
  }

  settings(): BackupSettings {
    try {
      return { ...DEFAULT_BACKUP_SETTINGS, ...JSON.parse(readFileSync(this.#settingsFile, "utf8")) };
    } catch {
      return { ...DEFAULT_BACKUP_SETTINGS };
    }
  }

  /** Applies the settings `body` names; a key that is not a setting, or a bad value, changes nothing (400). */
  updateSettings(body: Record<string, unknown>): BackupSettings {
    const unknown = Object.keys(body).find((k) => !SETTING_KEYS.includes(k as keyof BackupSettings));
    if (unknown !== undefined) {
      throw new Invalid(`"${unknown}" is not a backup setting. The settings are ${SETTING_KEYS.join(", ")}.`);
    }
    const next = this.settings();
    if (body.include !== undefined) next.include = checkIncludes(body.include);
    if (body.retention !== undefined) next.retention = checkRule(body.retention, "Retention");
    if (body.by_reason !== undefined) {
      if (!isObject(body.by_reason)) throw new Invalid("by_reason must be an object of rules by reason.");
      const by: BackupSettings["by_reason"] = {};
      for (const [reason, rule] of Object.entries(body.by_reason)) {
        if (!BACKUP_REASONS.includes(reason as BackupReason)) {
          throw new Invalid(`Unknown backup reason: ${reason}.`);
        }
        if (rule !== null) by[reason as BackupReason] = checkRule(rule, reason);
      }
      next.by_reason = by;
    }
    if (body.min_free_mb !== undefined) {
      const v = body.min_free_mb;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 10_000_000) {
        throw new Invalid("The free space floor must be a whole number of MiB (0 for none).");
      }
      next.min_free_mb = v;
    }
    writeJsonAtomic(this.#settingsFile, next);
    return next;
  }

  #listed: { from: IndexedBackup[]; json: string } | null = null;

  list(): Backup[] {
    return this.index.list().map(({ file: _file, ...b }) => b);
  }

  /** The list as the API sends it, serialised once per change of the index (a thousand rows are ~0.5 MB). */
  listJson(): string {
    const from = this.index.list();
    if (this.#listed?.from !== from) this.#listed = { from, json: JSON.stringify(this.list()) };
    return this.#listed.json;
  }

  find(id: unknown): IndexedBackup & { path: string } {
    if (typeof id !== "string" || !ID_RE.test(id)) throw new NotFound("No such backup.");
    const b = this.index.get(id);
    if (!b) throw new NotFound(`Backup ${id} does not exist.`);
    return { ...b, path: inside(this.dir, b.file) };
  }

  setLocked(id: unknown, locked: unknown): Backup {
    if (typeof locked !== "boolean") throw new Invalid('"locked" must be true or false.');
    const b = this.find(id);
    this.index.setLocked(b.id, locked);
    const { file: _f, path: _p, ...out } = { ...b, locked };
    return out;
  }

  async remove(id: unknown): Promise<void> {
    const b = this.find(id);
    if (b.locked) throw new Conflict(`Backup ${b.id} is locked. Unlock it before deleting it.`);
    await this.#delete(b);
  }

  async #delete(b: IndexedBackup): Promise<void> {
    await rm(inside(this.dir, b.file), { force: true });
    this.index.remove(b.id);
    this.deps.log.info("Backup deleted", { id: b.id });
  }

  /** The save a backup takes by default: the running one, else the last one run, else the newest file. */
  async #pickSave(explicit: string | undefined): Promise<string | null> {
    const status = this.deps.game.status();
    const running = status.status !== "stopped" && status.savefile && status.savefile !== LOAD_LATEST
      ? status.savefile
      : null;
    if (explicit !== undefined) {
      const name = saveFileName(explicit);
      if (!existsSync(inside(this.deps.paths.saves, name))) {
        throw new NotFound(`Save ${name} does not exist.`);
      }
      return name;
    }
    if (running) return running;
    if (
      status.savefile && status.savefile !== LOAD_LATEST &&
      existsSync(inside(this.deps.paths.saves, status.savefile))
    ) {
      return status.savefile;
    }
    let newest: { name: string; mtime: number } | null = null;
    for (const name of await readdir(this.deps.paths.saves).catch(() => [] as string[])) {
      if (!isListedSave(name)) continue;
      const s = await stat(join(this.deps.paths.saves, name)).catch(() => null);
      if (s?.isFile() && (!newest || s.mtimeMs > newest.mtime)) newest = { name, mtime: s.mtimeMs };
    }
    return newest?.name ?? null;
  }

  #parts(save: string, include: BackupInclude[]): BackupPart[] {
    const p = this.deps.paths;
    const parts: BackupPart[] = [{ path: `save/${save}`, file: inside(p.saves, save) }];
    const add = (path: string, file: string) => {
      if (existsSync(file) && statSync(file).isFile()) parts.push({ path, file });
    };
    if (include.includes("mod-list") && !include.includes("mods")) {
      add("mods/mod-list.json", p.modList);
      add("mods/mod-settings.dat", p.modSettings);
    }
    if (include.includes("settings")) add("config/server-settings.json", p.serverSettings);
    if (include.includes("players")) {
      add("config/server-adminlist.json", p.adminList);
      add("config/server-whitelist.json", p.whitelist);
      add("config/server-banlist.json", p.banlist);
    }
    return parts;
  }

  /**
   * Makes a backup and answers it once the file is complete and listed. A running game is asked to save
   * first (and the backup fails, leaving nothing, if it does not finish in time). Null when there is no
   * save to back up and `optional` is set.
   */
  async create(opts: CreateOptions & { optional?: boolean }): Promise<Backup | null> {
    try {
      return await this.#create(opts);
    } catch (e) {
      this.deps.log.warn("Backup failed", { reason: opts.reason, error: String(e) });
      this.deps.alert("Backup failed", `The ${opts.reason} backup failed: ${(e as Error).message}`);
      throw e;
    }
  }

  async #create(opts: CreateOptions & { optional?: boolean }): Promise<Backup | null> {
    const include = opts.include ?? [];
    const save = await this.#pickSave(opts.save);
    if (!save) {
      if (opts.optional) return null;
      throw new Conflict("There is no save to back up.");
    }
    const status = this.deps.game.status();
    if (status.status === "starting" || status.status === "stopping") {
      throw new Conflict(`The server is ${status.status}; try the backup again when it has finished.`);
    }
    if (status.status === "running" && status.savefile === save) {
      await saveNow({ game: this.deps.game, bus: this.deps.bus, timeoutMs: this.deps.saveTimeoutMs });
    }
    const created = this.deps.now();
    const slug = save.replace(/\.zip$/i, "").replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 60) || "save";
    let id = `${stamp(created)}_${opts.reason}_${slug}`;
    for (let n = 2; this.index.get(id) || existsSync(join(this.dir, `${id}.zip`)); n++) {
      id = `${stamp(created)}_${opts.reason}_${slug}_${n}`;
    }
    const file = `${id}.zip`;
    const parts = this.#parts(save, include);
    if (include.includes("mods") && existsSync(this.deps.paths.mods)) {
      for (const rel of await filesUnder(this.deps.paths.mods)) {
        parts.push({ path: `mods/${rel}`, file: join(this.deps.paths.mods, ...rel.split("/")) });
      }
    }
    let mods: { name: string; version: string }[] = [];
    let gameVersion = "";
    try {
      const header = await readSaveHeader(parts[0].file);
      mods = header.mods.map((m) => ({ name: m.name, version: m.version }));
      // The header has four parts ("2.0.72.0"); people know "2.0.72".
      const v = parseVersion(header.factorio_version);
      gameVersion = v ? formatVersion(v, 3) : header.factorio_version;
    } catch {
      gameVersion = (await this.deps.game.versionInfo()).version;
    }
    const target = join(this.dir, file);
    let written: Awaited<ReturnType<typeof writeBackup>>;
    try {
      written = await writeBackup(target, parts, {
        format: "factorio-panel-backup",
        version: 1,
        id,
        created: new Date(created).toISOString(),
        reason: opts.reason,
        save,
        game_version: gameVersion,
        mods,
        includes: include,
      });
    } catch (e) {
      // The write that failed is the backup file's (writeBackup leaves nothing behind): say which folder is
      // full, not "the panel's data", which points at the data dir.
      if (isNoSpace(e)) throw new HttpError(507, PANEL_MSG.noSpace(`the backups folder (${this.dir})`));
      throw e;
    }
    this.index.add(written.manifest, file, written.size, statSync(target).mtimeMs, written.sha256);
    this.deps.log.info("Backup made", { id, save, bytes: written.size, reason: opts.reason });
    await this.applyRetention();
    return this.list().find((b) => b.id === id) ?? null;
  }

  /**
   * The automatic backup before something that can destroy a world (a mod pack load, deleting all mods,
   * a save replaced by upload, a game version switch). Nothing to back up is fine; a failed backup
   * stops the action (HttpError with the reason), so nothing is lost unbacked.
   */
  async before(reason: BackupReason, include: BackupInclude[] = [], save?: string): Promise<Backup | null> {
    try {
      return await this.create({ reason, include, save, optional: true });
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      throw new HttpError(
        status,
        `The automatic backup failed, so nothing was changed: ${(e as Error).message}`,
      );
    }
  }

  /** Removes what the retention rules and the space floor say, and alerts when space is still short. */
  async applyRetention(): Promise<string[]> {
    const settings = this.settings();
    const removed: string[] = [];
    for (const id of expiredByRules(this.index.list(), settings, this.deps.now())) {
      const b = this.index.get(id);
      if (b) await this.#delete(b);
      removed.push(id);
    }
    const floor = settings.min_free_mb * 1024 * 1024;
    if (floor > 0) {
      const free = await (this.deps.freeBytes ?? freeBytesOf)(this.dir);
      const plan = expiredBySpace(this.index.list(), free, floor);
      for (const id of plan.ids) {
        const b = this.index.get(id);
        if (b) await this.#delete(b);
        removed.push(id);
      }
      if (plan.short) {
        this.deps.log.warn("The backups folder is short of space even after removing old backups", { free });
        this.deps.alert(
          "Backups: disk space low",
          `Less than ${settings.min_free_mb} MiB free in ${
            basename(this.dir)
          } and no unlocked backup left to remove.`,
        );
      }
    }
    return removed;
  }
}
