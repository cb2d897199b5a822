// Restoring a backup: its save into a new save name (nothing is overwritten) or over the save it was
// taken from, and, only when the caller asks (`files`), its mods folder, mod list, settings and player
// lists. Whatever a restore replaces is backed up first ("before-restore"). Refused while the game runs
// if it touches what the game uses, unless the caller asks for "stop, restore, start"; the caller runs
// this through the game operations queue.

import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import type { FactorioPaths } from "../layout.ts";
import { inside, safeName, saveFileName } from "../paths.ts";
import { withLock } from "../mods/moddir.ts";
import { Conflict, Invalid, Locked } from "../../lib/errors.ts";
import type { ServerStatus, StartRequest } from "../../../shared/api.ts";
import type { Backups } from "./service.ts";
import type { Backup, RestoreRequest } from "../../../shared/backups.ts";
import { BackupReader } from "./archive.ts";

export interface RestoreGame {
  status(): ServerStatus;
  stop(): Promise<{ message: string; status: number }>;
  start(request: StartRequest): Promise<{ message: string; status: number }>;
  whileStopped<T>(label: string, fn: () => Promise<T>): Promise<T>;
}

export function parseRestoreRequest(body: Record<string, unknown>): RestoreRequest {
  const req: RestoreRequest = {};
  if (body.as !== undefined && body.replace !== undefined) {
    throw new Invalid('Give either "as" (a new save name) or "replace", not both.');
  }
  if (body.as !== undefined) req.as = saveFileName(body.as, { what: "New save name", creating: true });
  else if (body.replace === true) req.replace = true;
  else throw new Invalid('Give "as" (a new save name) or "replace": true.');
  for (const k of ["restart", "files"] as const) {
    if (body[k] !== undefined && typeof body[k] !== "boolean") {
      throw new Invalid(`"${k}" must be true or false.`);
    }
    if (body[k] !== undefined) req[k] = body[k] as boolean;
  }
  return req;
}

/** Config files a backup may hold, by their name inside it, and where each goes. */
function configTargets(paths: FactorioPaths): Record<string, string> {
  return {
    "config/server-settings.json": paths.serverSettings,
    "config/server-adminlist.json": paths.adminList,
    "config/server-whitelist.json": paths.whitelist,
    "config/server-banlist.json": paths.banlist,
  };
}

/** Answers what was restored, in words. */
export async function restoreBackup(
  backups: Backups,
  game: RestoreGame,
  id: string,
  req: RestoreRequest,
): Promise<{ message: string; save: string }> {
  const b = backups.find(id);
  const paths = backups.deps.paths;
  const withFiles = req.files === true && b.includes.length > 0;
  const save = req.as ?? saveFileName(b.save);
  const target = inside(paths.saves, save);
  if (req.as && existsSync(target)) {
    throw new Conflict(`A save named ${save} already exists. Choose another name.`);
  }

  const before = game.status();
  // Restoring a save under a new name touches nothing the game uses; anything else needs it stopped.
  const needsStop = before.status !== "stopped" && (req.replace || withFiles);
  if (needsStop && !req.restart) {
    throw new Locked('The server is running: stop it first, or choose "stop, restore, start".');
  }
  if (req.restart && before.status !== "running" && before.status !== "stopped") {
    throw new Conflict(`The server is ${before.status}; try again when it has finished.`);
  }

  const reader = await BackupReader.open(b.path);
  try {
    const saveEntry = reader.find(`save/${b.save}`);
    if (!saveEntry) throw new Invalid(`Backup ${b.id} holds no save.`);
    const wasRunning = before.status === "running";
    if (wasRunning && req.restart) await game.stop();
    const restored = [`save ${save}`];
    // What this restore replaces besides a save, by the backup's parts; backed up first with the save.
    const replaces = withFiles ? b.includes : [];
    let safety: Backup | null = null;
    const apply = async () => {
      const overwrites = existsSync(target);
      // The save about to be overwritten is backed up first, with the files the restore replaces.
      if (overwrites) safety = await backups.before("before-restore", replaces, save);
      await mkdir(paths.saves, { recursive: true });
      await reader.extract(saveEntry, target);
      if (withFiles) {
        if (!overwrites) {
          // Into a new save: a backup needs a save to hold, and now there is one (the usual pick, else
          // this one); without the backup nothing else is replaced, and the new save goes again.
          try {
            safety = await backups.before("before-restore", replaces);
          } catch (e) {
            await rm(target, { force: true });
            throw e;
          }
        }
        restored.push(...await restoreFiles(reader, paths));
      }
    };
    // Anything beyond a new save holds the game directory: the game cannot start half-way through.
    if (req.replace || withFiles) await game.whileStopped("restoring a backup", apply);
    else await apply();
    backups.deps.log.info("Backup restored", { id: b.id, save, files: withFiles });
    let message = `Restored ${restored.join(", ")} from backup ${b.id}.`;
    const made = safety as Backup | null;
    if (made) message += ` What it replaced was backed up first (backup ${made.id}).`;
    if (req.restart && (wasRunning || before.status === "stopped")) {
      const started = await game.start({ bindip: before.bindip, port: before.port, savefile: save });
      message += ` ${started.message}`;
    }
    return { message, save };
  } finally {
    await reader.close();
  }
}

/**
 * Puts a backup's mods (the whole folder, or mod-list.json and mod-settings.dat) and config files where
 * `paths` says, and answers what it put, in words. Also unpacks a backup into a new server's folder.
 */
export async function restoreFiles(reader: BackupReader, paths: FactorioPaths): Promise<string[]> {
  const restored: string[] = [];
  const mods = reader.under("mods/");
  const fullMods = reader.manifest.includes.includes("mods");
  if (mods.length > 0) {
    await withLock(paths.mods, async () => {
      if (fullMods) {
        // The whole folder: built beside the live one, then swapped in, so the game never sees half of it.
        const parent = dirname(paths.mods);
        const fresh = join(parent, `.mods-restore-${randomBytes(6).toString("hex")}`);
        const old = join(parent, `.mods-old-${randomBytes(6).toString("hex")}`);
        try {
          for (const { rest, entry } of mods) {
            const segments = rest.split("/").map((s) => safeName(s, "File name in the backup"));
            const dir = join(fresh, ...segments.slice(0, -1));
            await mkdir(dir, { recursive: true });
            await reader.extract(entry, inside(dir, segments.at(-1)!));
          }
          if (existsSync(paths.mods)) await rename(paths.mods, old);
          await rename(fresh, paths.mods);
        } finally {
          await rm(fresh, { recursive: true, force: true });
          await rm(old, { recursive: true, force: true });
        }
        restored.push(`the mods folder (${mods.length} files)`);
      } else {
        await mkdir(paths.mods, { recursive: true });
        for (const { rest, entry } of mods) {
          const to = rest === "mod-list.json"
            ? paths.modList
            : rest === "mod-settings.dat"
            ? paths.modSettings
            : null;
          if (!to) continue;
          await reader.extract(entry, to);
          restored.push(rest);
        }
      }
    });
  }
  for (const [name, to] of Object.entries(configTargets(paths))) {
    const entry = reader.find(name);
    if (!entry) continue;
    await mkdir(dirname(to), { recursive: true });
    // Settings hold secrets (game password, token): owner-only, like the panel writes them.
    await reader.extract(entry, to, 0o600);
    restored.push(name.slice("config/".length));
  }
  return restored;
}
