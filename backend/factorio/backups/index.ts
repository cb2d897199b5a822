// The backups table: one row per backup file, so the list is one query however many there are. The
// files are the truth: repair() brings the table in line with the folder at start-up (files added by
// hand or left by a crash are read from their manifest, rows whose file is gone are dropped, leftover
// temp files from an interrupted backup are removed).

import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Db } from "../../store/db.ts";
import type { Logger } from "../../lib/log.ts";
import type { Backup, BackupInclude, BackupManifest, BackupReason } from "../../../shared/backups.ts";
import { readManifest } from "./archive.ts";
import { createHash } from "node:crypto";

interface Row {
  id: string;
  file: string;
  created: number;
  reason: string;
  save: string;
  size: number;
  mtime: number;
  sha256: string;
  locked: number;
  game_version: string;
  includes: string;
  mods: string;
}

export interface IndexedBackup extends Backup {
  /** The file name in the backups folder. */
  file: string;
}

function toBackup(r: Row): IndexedBackup {
  return {
    id: r.id,
    file: r.file,
    created: new Date(r.created).toISOString(),
    reason: r.reason as BackupReason,
    save: r.save,
    size: r.size,
    sha256: r.sha256,
    locked: r.locked === 1,
    game_version: r.game_version,
    includes: JSON.parse(r.includes) as BackupInclude[],
    mods: JSON.parse(r.mods),
  };
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  const file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

export class BackupIndex {
  /** The list as last read: every change below goes through this class and drops it. */
  #cache: IndexedBackup[] | null = null;

  constructor(private readonly db: Db, private readonly log: Logger) {}

  list(): IndexedBackup[] {
    this.#cache ??=
      (this.db.prepare("SELECT * FROM backups ORDER BY created DESC, id DESC").all() as unknown as Row[])
        .map(toBackup);
    return this.#cache;
  }

  get(id: string): IndexedBackup | null {
    const r = this.db.prepare("SELECT * FROM backups WHERE id = ?").get(id) as unknown as Row | undefined;
    return r ? toBackup(r) : null;
  }

  add(m: BackupManifest, file: string, size: number, mtime: number, sha256: string, locked = false): void {
    this.#cache = null;
    this.db.prepare(
      `INSERT OR REPLACE INTO backups (id, file, created, reason, save, size, mtime, sha256, locked, game_version, includes, mods)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      m.id,
      file,
      Date.parse(m.created),
      m.reason,
      m.save,
      size,
      Math.trunc(mtime),
      sha256,
      locked ? 1 : 0,
      m.game_version,
      JSON.stringify(m.includes),
      JSON.stringify(m.mods),
    );
  }

  setLocked(id: string, locked: boolean): void {
    this.#cache = null;
    this.db.prepare("UPDATE backups SET locked = ? WHERE id = ?").run(locked ? 1 : 0, id);
  }

  remove(id: string): void {
    this.#cache = null;
    this.db.prepare("DELETE FROM backups WHERE id = ?").run(id);
  }

  /** Brings the table in line with the files in `dir`. */
  async repair(dir: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      names = [];
    }
    const rows = new Map(
      (this.db.prepare("SELECT id, file, size, mtime, locked FROM backups").all() as unknown as Row[]).map((
        r,
      ) => [r.file, r]),
    );
    for (const name of names) {
      const path = join(dir, name);
      if (name.startsWith(".") && name.endsWith(".tmp")) {
        // A backup that was being written when the panel stopped.
        await rm(path, { force: true });
        this.log.info("Removed an unfinished backup file", { file: name });
        continue;
      }
      if (name.startsWith(".") || !name.toLowerCase().endsWith(".zip")) continue;
      const s = await stat(path).catch(() => null);
      if (!s?.isFile()) continue;
      const row = rows.get(name);
      rows.delete(name);
      if (row && row.size === s.size && row.mtime === Math.trunc(s.mtimeMs)) continue;
      try {
        const m = await readManifest(path);
        this.add(m, name, s.size, s.mtimeMs, await sha256Of(path), row?.locked === 1);
        this.log.info("Indexed a backup file", { file: name });
      } catch (e) {
        this.log.warn("A file in the backups folder is not a readable backup; it is not listed", {
          file: name,
          error: String(e),
        });
        if (row) this.remove(row.id);
      }
    }
    for (const row of rows.values()) {
      this.remove(row.id);
      this.log.warn("A backup's file is gone; removed it from the list", { id: row.id });
    }
  }
}
