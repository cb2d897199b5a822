// A server's Factorio directory (its write-data dir: saves, mods, config, player lists, logs): made empty,
// checked when the user names one to use where it is (a Factorio unpacked by hand, a factorio-docker
// volume), copied from another server, or unpacked from a panel backup. Every new directory is built in a
// hidden folder beside its place and renamed into place only when complete, so a failure leaves nothing.

import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { copyFile, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { tempPathFor } from "../lib/fsutil.ts";
import { Conflict, Invalid } from "../lib/errors.ts";
import { ZipError } from "../lib/zip.ts";
import { factorioPaths } from "../factorio/layout.ts";
import { gameBinaryIn } from "../factorio/versions/store.ts";
import { inside, saveFileName } from "../factorio/paths.ts";
import { BackupReader } from "../factorio/backups/archive.ts";
import { restoreFiles } from "../factorio/backups/restore.ts";
import { isListedSave } from "../factorio/saves/service.ts";
import type { BackupManifest } from "../../shared/backups.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";

/** The folders a write-data dir has; the game makes the rest (logs, script-output) itself. */
const FOLDERS = ["saves", "mods", "config"];

/** The config files a server owns: its settings and its player lists. Not config.ini: its [path] names the source's dirs. */
const CONFIG_FILES = [
  "server-settings.json",
  "server-adminlist.json",
  "server-whitelist.json",
  "server-banlist.json",
];

function refuseExisting(root: string): void {
  if (existsSync(root)) throw new Conflict(SERVERS_MSG.folderExists(root));
}

/** A hidden folder beside `root`, for building it; its parent is made when missing. */
function stagingFor(root: string): string {
  mkdirSync(dirname(root), { recursive: true });
  return tempPathFor(root);
}

/**
 * Renames the finished `staging` to `root`. Someone who made `root` meanwhile keeps it (a rename onto a
 * non-empty folder fails; onto an empty one it would replace it, so that is refused first).
 */
async function moveIntoPlace(staging: string, root: string): Promise<void> {
  refuseExisting(root);
  try {
    await rename(staging, root);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOTEMPTY" || code === "EEXIST") throw new Conflict(SERVERS_MSG.folderExists(root));
    throw e;
  }
}

/** Runs `build` on a new staging folder for `root`, then moves it into place; on any failure removes it. */
export async function buildAtomically(
  root: string,
  build: (staging: string) => Promise<void>,
): Promise<void> {
  refuseExisting(root);
  const staging = stagingFor(root);
  try {
    await mkdir(staging);
    await build(staging);
    await moveIntoPlace(staging, root);
  } catch (e) {
    await rm(staging, { recursive: true, force: true });
    throw e;
  }
}

/** Makes a new server's empty write-data dir (saves/, mods/, config/). Refuses (409) if `root` exists. */
export function prepareEmptyServer(root: string): void {
  refuseExisting(root);
  const staging = stagingFor(root);
  try {
    mkdirSync(staging);
    for (const f of FOLDERS) mkdirSync(join(staging, f));
    refuseExisting(root);
    renameSync(staging, root);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })?.isFile() === true;

/** True when `child` is `parent` or inside it (both real paths). */
function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** A real path, or the path resolved when it does not exist (a server whose folder went missing). */
function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/**
 * Checks a folder named by the user to be a server's Factorio directory where it is, and answers its real
 * path (symlinks resolved). It must be an absolute path to a folder the panel may write in, look like a
 * Factorio write-data dir (saves/, mods/ or config/, a server-settings.json, or the game's binary of a
 * Factorio unpacked by hand; a factorio-docker volume has saves, mods, config, scenarios and
 * script-output), and be neither the Factorio directory of another server, nor inside one, nor hold one.
 */
export function checkFactorioFolder(dir: string, others: { name: string; root: string }[]): string {
  if (typeof dir !== "string" || dir.trim() === "") throw new Invalid(SERVERS_MSG.folderRequired);
  if (!isAbsolute(dir)) throw new Invalid(SERVERS_MSG.folderNotAbsolute(dir));
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) throw new Invalid(SERVERS_MSG.folderMissing(dir));
  if (!st.isDirectory()) throw new Invalid(SERVERS_MSG.folderNotDirectory(dir));
  const real = realpathSync(dir);
  const looksLikeFactorio = FOLDERS.some((f) => isDir(join(real, f))) ||
    isFile(join(real, "server-settings.json")) || isFile(gameBinaryIn(real));
  if (!looksLikeFactorio) throw new Invalid(SERVERS_MSG.folderNotFactorio(dir));
  for (const o of others) {
    const theirs = realOrResolved(o.root);
    if (theirs === real) throw new Conflict(SERVERS_MSG.folderOfServer(dir, o.name));
    if (within(real, theirs)) throw new Conflict(SERVERS_MSG.folderInsideServer(dir, o.name));
    if (within(theirs, real)) throw new Conflict(SERVERS_MSG.folderHoldsServer(dir, o.name));
  }
  try {
    accessSync(real, constants.W_OK | constants.X_OK);
  } catch {
    throw new Invalid(SERVERS_MSG.folderNotWritable(dir));
  }
  return real;
}

/** What a directory entry is once symlinks are followed; null for a broken link or anything but a file or folder. */
async function kindOf(path: string): Promise<"file" | "dir" | null> {
  const s = await stat(path).catch((e) => {
    if (e.code === "ENOENT" || e.code === "ELOOP") return null;
    throw e;
  });
  return s?.isFile() ? "file" : s?.isDirectory() ? "dir" : null;
}

/** The visible entries of `dir` ([] when it does not exist); dot files are the game's and the panel's temp files. */
async function entriesOf(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((e) => {
    if (e.code === "ENOENT") return [] as string[];
    throw e;
  });
  return names.filter((n) => !n.startsWith(".")).sort();
}

/** Copies a folder's files and subfolders, recursively (a mod unpacked as a folder, a scenario). */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await entriesOf(from)) {
    const kind = await kindOf(join(from, name));
    if (kind === "dir") await copyTree(join(from, name), join(to, name));
    // copyFile streams in the kernel (no file in memory) and keeps the mode (owner-only settings stay so).
    else if (kind === "file") await copyFile(join(from, name), join(to, name), constants.COPYFILE_EXCL);
  }
}

/**
 * Copies a server's files into a new server's directory: its saves (the .zip files), its mods (zips,
 * folders, mod-list.json, mod-settings.dat), its settings and player lists from config/, and scenarios/.
 * Not config.ini (its [path] names the source's folders), not factorio-docker's config/rconpw (the new
 * server has its own RCON password), not the logs, not versions/, not the panel's own files. Built beside
 * `toRoot` and renamed into place: a failure leaves nothing there. Refuses (409) if `toRoot` exists.
 */
export async function copyServerFiles(fromRoot: string, toRoot: string): Promise<void> {
  await buildAtomically(toRoot, async (staging) => {
    for (const f of FOLDERS) await mkdir(join(staging, f));
    const saves = join(fromRoot, "saves");
    for (const name of await entriesOf(saves)) {
      if (isListedSave(name) && await kindOf(join(saves, name)) === "file") {
        await copyFile(join(saves, name), join(staging, "saves", name), constants.COPYFILE_EXCL);
      }
    }
    const mods = join(fromRoot, "mods");
    for (const name of await entriesOf(mods)) {
      const kind = await kindOf(join(mods, name));
      const wanted = /\.zip$/i.test(name) || name === "mod-list.json" || name === "mod-settings.dat";
      if (kind === "dir") await copyTree(join(mods, name), join(staging, "mods", name));
      else if (kind === "file" && wanted) {
        await copyFile(join(mods, name), join(staging, "mods", name), constants.COPYFILE_EXCL);
      }
    }
    for (const name of CONFIG_FILES) {
      const from = join(fromRoot, "config", name);
      if (await kindOf(from) === "file") {
        await copyFile(from, join(staging, "config", name), constants.COPYFILE_EXCL);
      }
    }
    if (await kindOf(join(fromRoot, "scenarios")) === "dir") {
      await copyTree(join(fromRoot, "scenarios"), join(staging, "scenarios"));
    }
  });
}

/**
 * Unpacks a panel backup into a new server's directory: its save into saves/, and what else it holds
 * (the mods folder or mod-list.json and mod-settings.dat, server-settings.json, the player lists) where
 * a restore puts them, each file checked against the backup's manifest. Answers the backup's manifest
 * (its save, game version, mods). Refuses (409) if `toRoot` exists; an unreadable backup is 400.
 */
export async function serverFromBackup(backupZip: string, toRoot: string): Promise<BackupManifest> {
  refuseExisting(toRoot);
  let reader: BackupReader;
  try {
    reader = await BackupReader.open(backupZip);
  } catch (e) {
    if (e instanceof ZipError) throw new Invalid(SERVERS_MSG.backupUnreadable(backupZip, e.message));
    throw e;
  }
  try {
    const manifest = reader.manifest;
    await buildAtomically(toRoot, async (staging) => {
      for (const f of FOLDERS) await mkdir(join(staging, f));
      const save = saveFileName(manifest.save);
      const entry = reader.find(`save/${manifest.save}`);
      if (!entry) throw new Invalid(SERVERS_MSG.backupUnreadable(backupZip, "it holds no save"));
      await reader.extract(entry, inside(join(staging, "saves"), save));
      // No binary is needed to know where the files go: only the write-data paths are used.
      await restoreFiles(reader, factorioPaths({ factorioDir: staging, factorioBinary: "" }));
    }).catch((e) => {
      if (e instanceof ZipError) throw new Invalid(SERVERS_MSG.backupUnreadable(backupZip, e.message));
      throw e;
    });
    return manifest;
  } finally {
    await reader.close();
  }
}
