// Game versions on disk. Each managed version is a folder <factorio-dir>/versions/<x.y.z> (the tarball's
// factorio/ folder, renamed into place whole once checked); which one the game uses is
// <factorio-dir>/versions/active.json. Everything the game writes (saves, mods, config/, player lists,
// logs) stays in <factorio-dir>, the write-data directory every version shares: each version's
// config-path.cfg points at <factorio-dir>/config, whose config.ini [path] sets write-data to
// <factorio-dir>. A game unpacked by hand in --factorio-dir (no active.json) is used as it is.
//
// layout.ts reads the active version through activeVersion() on every path lookup, so a switch is seen
// by the game server, saves, mods and settings at once. The record is cached per folder: this process
// is its only writer.

import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { type Channel, EXACT_VERSION } from "../../../shared/factorio-versions.ts";
import { compareVersionStrings } from "../../../shared/versions.ts";
import { ensureDir, writeFileAtomic, writeJsonAtomic } from "../../lib/fsutil.ts";

export interface ActiveRecord {
  version: string;
  channel: Channel;
  /** The version active before this one ("" for none, "unmanaged" for the hand-installed game). */
  previous: string;
}

export const UNMANAGED = "unmanaged";

export function versionsDir(factorioDir: string): string {
  return join(factorioDir, "versions");
}

export function versionDir(factorioDir: string, version: string): string {
  return join(versionsDir(factorioDir), version);
}

const cache = new Map<string, ActiveRecord | null>();

/** The managed version the game uses, or null for the game in --factorio-dir itself. */
export function activeVersion(factorioDir: string): ActiveRecord | null {
  if (!cache.has(factorioDir)) {
    let record: ActiveRecord | null = null;
    try {
      const data = JSON.parse(readFileSync(join(versionsDir(factorioDir), "active.json"), "utf8"));
      if (typeof data?.version === "string" && EXACT_VERSION.test(data.version)) {
        record = {
          version: data.version,
          channel: data.channel === "experimental" ? "experimental" : "stable",
          previous: typeof data.previous === "string" ? data.previous : "",
        };
      }
    } catch {
      // none yet
    }
    cache.set(factorioDir, record);
  }
  return cache.get(factorioDir)!;
}

/** Switches the game to `record` (null: back to the hand-installed game), atomically. */
export function setActiveVersion(factorioDir: string, record: ActiveRecord | null): void {
  const file = join(versionsDir(factorioDir), "active.json");
  ensureDir(versionsDir(factorioDir));
  if (record) writeJsonAtomic(file, record);
  else rmSync(file, { force: true });
  cache.set(factorioDir, record);
}

/**
 * The game's executable in a game folder: bin/x64/factorio, or bin/arm64/factorio in the native ARM64
 * build (2.1 and later). The x64 path when neither is there, for the messages that name it.
 */
export function gameBinaryIn(gameDir: string): string {
  const x64 = join(gameDir, "bin", "x64", "factorio");
  if (existsSync(x64)) return x64;
  const arm64 = join(gameDir, "bin", "arm64", "factorio");
  return existsSync(arm64) ? arm64 : x64;
}

/** Managed versions on disk (complete folders only), newest first. */
export function installedVersions(factorioDir: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(versionsDir(factorioDir));
  } catch {
    return [];
  }
  return names
    .filter((n) => EXACT_VERSION.test(n) && existsSync(gameBinaryIn(join(versionsDir(factorioDir), n))))
    .sort((a, b) => compareVersionStrings(b, a));
}

/** The version of a game folder, from data/base/info.json; null when unreadable. */
export function versionOfGameDir(gameDir: string): string | null {
  try {
    const v = JSON.parse(readFileSync(join(gameDir, "data", "base", "info.json"), "utf8")).version;
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

/** Removes a version folder: renamed aside first, so a half-deleted folder is never taken for a version. */
export function removeVersion(factorioDir: string, version: string): void {
  const dir = versionDir(factorioDir, version);
  if (!existsSync(dir)) return;
  const aside = join(versionsDir(factorioDir), `.deleting-${version}-${randomBytes(4).toString("hex")}`);
  renameSync(dir, aside);
  rmSync(aside, { recursive: true, force: true });
}

/** Leftovers of installs and deletes that a crash interrupted. */
export function removeLeftovers(factorioDir: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(versionsDir(factorioDir));
  } catch {
    return;
  }
  for (const n of names) {
    if (/^\.(download|unpack|deleting)-/.test(n)) {
      rmSync(join(versionsDir(factorioDir), n), { recursive: true, force: true });
    }
  }
}

/** Points a version's config-path.cfg at the shared config folder, so the game's write-data is shared. */
export function writeConfigPath(gameDir: string, factorioDir: string): void {
  writeFileAtomic(
    join(gameDir, "config-path.cfg"),
    `config-path=${join(factorioDir, "config")}\nuse-system-read-write-data-directories=false\n`,
  );
}

/**
 * Makes <factorio-dir>/config/config.ini say where the game reads its data (beside each version's
 * binary) and where it writes (<factorio-dir>), keeping every other line as it is. Written before any
 * managed version runs: a game that finds no config.ini writes one with write-data beside itself.
 */
export function ensureSharedConfig(factorioDir: string): void {
  const dir = join(factorioDir, "config");
  ensureDir(dir);
  const file = join(dir, "config.ini");
  const want: Record<string, string> = {
    "read-data": "__PATH__executable__/../../data",
    "write-data": factorioDir,
  };
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // none yet
  }
  const next = setIniValues(text, "path", want);
  if (next !== text) writeFileAtomic(file, next);
}

/** Sets keys of one [section] of an ini text, adding the section or keys when missing; other lines stay. */
export function setIniValues(text: string, section: string, values: Record<string, string>): string {
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  let start = lines.findIndex((l) => l.trim() === `[${section}]`);
  if (start === -1) {
    lines.splice(
      lines.findIndex((l) => /^\s*\[/.test(l)) === -1
        ? lines.length
        : lines.findIndex((l) => /^\s*\[/.test(l)),
      0,
      `[${section}]`,
      "",
    );
    start = lines.findIndex((l) => l.trim() === `[${section}]`);
  }
  let end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  if (end === -1) end = lines.length;
  for (const [key, value] of Object.entries(values)) {
    const i = lines.findIndex((l, j) => j > start && j < end && new RegExp(`^\\s*${key}\\s*=`).test(l));
    if (i !== -1) lines[i] = `${key}=${value}`;
    else {
      lines.splice(start + 1, 0, `${key}=${value}`);
      end++;
    }
  }
  return lines.join("\n") + "\n";
}
