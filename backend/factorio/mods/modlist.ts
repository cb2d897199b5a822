// mod-list.json: which mods the game loads. The game writes it and may add keys (a pinned "version" per
// mod, and who knows what later), so the panel changes only the entries it means to and writes back
// everything else as it found it.

import { readFileSync } from "node:fs";
import { Conflict } from "../../lib/errors.ts";
import { writeJsonAtomic } from "../../lib/fsutil.ts";

type Entry = Record<string, unknown> & { name: string };

export class ModListFile {
  /** Entries by name, built on first lookup: a list of 1,000 mods is not searched once per mod. */
  private index: Map<string, Entry> | null = null;

  private constructor(private readonly data: Record<string, unknown>, private readonly entries: Entry[]) {}

  private entry(name: string): Entry | undefined {
    if (!this.index) {
      this.index = new Map();
      // The first entry of a name wins, as a linear search would find it.
      for (const e of this.entries) if (!this.index.has(e.name)) this.index.set(e.name, e);
    }
    return this.index.get(name);
  }

  /**
   * Reads the file. A missing file is an empty list (the game enables what it finds). A file that is not
   * a mod list throws Conflict, so no change is written over it, unless `tolerant` (for reading only).
   */
  static read(path: string, opts: { tolerant?: boolean } = {}): ModListFile {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return ModListFile.empty();
      throw e;
    }
    try {
      const data = JSON.parse(text);
      if (typeof data !== "object" || data === null || Array.isArray(data)) {
        throw new Error("not a JSON object");
      }
      if (data.mods === undefined) data.mods = [];
      if (!Array.isArray(data.mods)) throw new Error('"mods" is not a list');
      const entries = (data.mods as unknown[]).filter(
        (m): m is Entry => typeof m === "object" && m !== null && typeof (m as Entry).name === "string",
      );
      return new ModListFile(data, entries);
    } catch (e) {
      if (opts.tolerant) return ModListFile.empty();
      throw new Conflict(
        `mod-list.json is damaged (${(e as Error).message}); fix or delete it, then try again.`,
      );
    }
  }

  static empty(): ModListFile {
    return new ModListFile({ mods: [] }, []);
  }

  /** The entry's "enabled", or undefined when the mod has no entry (the game then enables it). */
  enabled(name: string): boolean | undefined {
    const e = this.entry(name);
    return e === undefined ? undefined : e.enabled !== false;
  }

  /** A version the entry pins, if any. */
  pinned(name: string): string | undefined {
    const v = this.entry(name)?.version;
    return typeof v === "string" ? v : undefined;
  }

  names(): string[] {
    return this.entries.map((e) => e.name);
  }

  /** Sets "enabled", adding an entry when there is none; the entry's other keys stay. */
  set(name: string, enabled: boolean): void {
    const e = this.entry(name);
    if (e) e.enabled = enabled;
    else {
      const added = { name, enabled };
      this.entries.push(added);
      this.index = null;
      (this.data.mods as unknown[]).push(added);
    }
  }

  /** Drops a pinned version (after the mod was replaced by another version). */
  unpin(name: string): void {
    const e = this.entry(name);
    if (e) delete e.version;
  }

  remove(name: string): void {
    const mods = this.data.mods as unknown[];
    this.data.mods = mods.filter((m) => (m as Entry)?.name !== name);
    const i = this.entries.findIndex((m) => m.name === name);
    if (i >= 0) this.entries.splice(i, 1);
    this.index = null;
  }

  /** Keeps only the entries `keep` says yes to (anything in "mods" that is not an entry stays). */
  retain(keep: (name: string) => boolean): void {
    for (const name of this.names()) if (!keep(name)) this.remove(name);
  }

  write(path: string): void {
    writeJsonAtomic(path, this.data, 0o644, 2);
  }
}
