// A value built from the files of a folder (a listing), kept until something it was built from changes, so
// a request that finds nothing changed costs the same for 20 files as for 2,000.
//
// What tells us that something changed, and why each is needed:
// - A stamp of a few paths (the folder itself, mod-list.json, ...), taken on every get(): inode, size, mtime
//   and ctime. Adding, removing or renaming a file in the folder changes the folder's mtime and ctime at
//   once, synchronously, so the panel's own changes (always write-temp-then-rename) and most outside ones
//   are seen by the very next request without waiting for any event.
// - A watch on the folder (inotify): a file written in place, by the game or by hand, does not touch the
//   folder's times; the watch event marks the value stale. Files the value is read from (`contents`, such
//   as mod-list.json) are left to the watch on their folder, which reports a change within a millisecond
//   or two: one stat per file per request was most of what an unchanged mod list cost (3 stats: 8.5-9.8k
//   req/s, 1 stat: 11.9-12.9k, 300 mods). Only while their folder has no working watch (missing, or no
//   inotify watch left) are they stamped on every get() instead.
// - invalidate(), called by the panel after its own changes, so nothing depends on timestamps for those.
// - "Racy" stamps (as git calls them): file times come from a coarse kernel clock (a few ms per tick), and
//   Deno gives ctime in whole seconds, so two changes close together can leave the same times. A value
//   built within RACY_MS of the newest time in its stamp is not trusted and is built again on the next get().
// A file replaced with the same size and mtime still gets a new ctime (and usually a new inode): ctime
// cannot be set from user space, which is why it is part of every stamp.

import { dirname } from "../path.ts";

const RACY_MS = 100;

/**
 * Paths that were missing at their last stamp, with the stamp their folder had then. A stat of a missing
 * path costs 12-16 µs (the runtime builds an error for it), a stat of its folder 3-4 µs. Many stamped
 * paths are missing for good (mod-list.json before the first mod, say), and they were paid for on every
 * request. Adding an entry to a folder (creating, renaming or linking into it) changes the folder's
 * mtime, so while the folder's stamp is the one it had, the path is still missing. As with values,
 * a folder changed within RACY_MS of that look is not trusted (timestamps have coarse steps): null, and
 * the path itself is looked at each time.
 */
const missing = new Map<string, string | null>();

function folderStamp(path: string): string | null {
  try {
    const s = Deno.statSync(path);
    return `${s.ino}:${s.mtime?.getTime()}`;
  } catch {
    return null;
  }
}

/** inode, size, mtime and ctime of a path, or "-" when it is missing. */
export function stampOf(path: string): string {
  const folderThen = missing.get(path);
  if (folderThen) {
    if (folderStamp(dirname(path)) === folderThen) return "-";
  }
  try {
    const s = Deno.statSync(path);
    missing.delete(path);
    return `${s.ino}:${s.size}:${s.mtime?.getTime()}:${s.ctime?.getTime()}`;
  } catch {
    if (missing.size >= 10_000) missing.clear();
    let folder: Deno.FileInfo | null = null;
    try {
      folder = Deno.statSync(dirname(path));
    } catch {
      // the folder is missing too: the path is looked at each time
    }
    const settled = folder?.mtime && folder.mtime.getTime() < Date.now() - RACY_MS;
    missing.set(path, settled ? `${folder!.ino}:${folder!.mtime!.getTime()}` : null);
    return "-";
  }
}

/**
 * Whether a path exists now. A missing path costs a stat of its folder here, not a thrown error (see
 * `missing`), so a check on every request of a file that is usually absent stays cheap.
 */
export function pathExists(path: string): boolean {
  return stampOf(path) !== "-";
}

/** The newest mtime/ctime in a stamp string (ms), for the racy check. */
function newestTime(stamp: string): number {
  let max = 0;
  for (const part of stamp.split("|")) {
    if (part === "-" || part === "") continue;
    const [, , m, c] = part.split(":");
    // Deno reports ctime in whole seconds: the real change may be up to a second after the figure.
    max = Math.max(max, Number(m), Number(c) + 1000);
  }
  return max;
}

export interface FolderCacheOptions<T> {
  /** The folders to watch (non-recursively); missing ones are watched once they exist. */
  watch: string[];
  /**
   * Paths whose stamp is compared on every get() (a folder: its entries), besides `extraStamps` of the
   * last built value; a function when the paths themselves can change.
   */
  stamps: string[] | (() => string[]);
  /**
   * Files the value is read from, whose changes the watch on their folder reports (their folders are
   * watched with `watch`); stamped on every get() only while that folder has no working watch. A function
   * when the paths can change: it must then return the same array while they do not (a new array is taken
   * as new paths, and the value is built again with their folders watched).
   */
  contents?: string[] | (() => string[]);
  build: () => Promise<T>;
  /** Further paths to stamp, found while building (e.g. the info.json of unpacked mod folders). */
  extraStamps?: (value: T) => string[];
}

interface Kept<T> {
  v: T;
  stamp: string;
  gen: number;
  /** Stamped besides the own stamps: extraStamps of the value, and contents whose folder had no watch. */
  extra: string[];
  /** The contents list the value was built with. */
  contents: string[];
  trusted: boolean;
}

interface Watch {
  ino: string;
  watcher: Deno.FsWatcher;
  done: Promise<void>;
  /** False once the watch ended (its folder went away): changes there are no longer reported. */
  live: boolean;
}

const NONE: string[] = [];

export class FolderCache<T> {
  private value: Kept<T> | null = null;
  /** Bumped by every watch event and invalidate(): a value built under an older generation is stale. */
  private gen = 0;
  private building: Promise<T> | null = null;
  private buildingGen = -1;
  private watchers = new Map<string, Watch>();
  private closed = false;
  private readonly watchFs: typeof Deno.watchFs;

  /** `watchFs` is for tests (a machine out of inotify watches); Deno.watchFs otherwise. */
  constructor(private readonly opts: FolderCacheOptions<T>, hooks: { watchFs?: typeof Deno.watchFs } = {}) {
    this.watchFs = hooks.watchFs ?? Deno.watchFs;
  }

  /** Drops the value; the next get() builds it again. */
  invalidate(): void {
    this.gen++;
  }

  private contentsNow(): string[] {
    const c = this.opts.contents;
    return c === undefined ? NONE : typeof c === "function" ? c() : c;
  }

  private stamp(extra: string[]): string {
    const stamps = typeof this.opts.stamps === "function" ? this.opts.stamps() : this.opts.stamps;
    const own = stamps.length === 1 ? stampOf(stamps[0]) : stamps.map(stampOf).join("|");
    if (!extra.length) return own;
    return own ? own + "|" + extra.map(stampOf).join("|") : extra.map(stampOf).join("|");
  }

  /**
   * The kept value when nothing it depends on changed (checked now, as get() does), else undefined:
   * get() would build it. Lets a request that finds the value current answer without a promise.
   */
  peek(): T | undefined {
    const cur = this.value;
    if (
      cur && cur.trusted && cur.gen === this.gen && cur.contents === this.contentsNow() && cur.stamp === this.stamp(cur.extra)
    ) return cur.v;
    return undefined;
  }

  /** The value, built again only when something it depends on changed. */
  get(): Promise<T> {
    const kept = this.peek();
    if (kept !== undefined) return Promise.resolve(kept);
    // One build at a time; callers arriving meanwhile share it unless a change came in after it started.
    if (this.building && this.buildingGen === this.gen) return this.building;
    return this.rebuild();
  }

  private rebuild(): Promise<T> {
    const contents = this.contentsNow();
    this.ensureWatching(contents);
    // Contents whose folder has no working watch are stamped like the own stamps; the others are left to
    // the watch, started above, before anything is read.
    const unwatched = contents.filter((path) => !this.watchers.get(dirname(path))?.live);
    const gen = this.gen;
    const started = Date.now();
    const run = (async () => {
      // Stamped before reading, so a change during the build shows as a different stamp next time.
      const before = this.stamp(unwatched);
      const v = await this.opts.build();
      const found = this.opts.extraStamps?.(v) ?? [];
      const stamp = found.length ? (before ? before + "|" : "") + found.map(stampOf).join("|") : before;
      const extra = unwatched.length ? [...unwatched, ...found] : found;
      const trusted = !this.closed && started - newestTime(stamp) > RACY_MS;
      this.value = { v, stamp, gen, extra, contents, trusted };
      return v;
    })();
    this.building = run;
    this.buildingGen = gen;
    const clear = () => {
      if (this.building === run) this.building = null;
    };
    run.then(clear, clear);
    return run;
  }

  /**
   * Starts (or restarts, for a folder that was replaced) the watch of each folder that exists: the
   * `watch` folders and those of `contents`. A folder no longer among them stops being watched.
   */
  private ensureWatching(contents: string[]): void {
    if (this.closed) return;
    const dirs = new Set(this.opts.watch);
    for (const path of contents) dirs.add(dirname(path));
    for (const dir of this.watchers.keys()) {
      if (!dirs.has(dir)) this.unwatch(dir);
    }
    for (const dir of dirs) {
      const ino = stampOf(dir).split(":")[0];
      const had = this.watchers.get(dir);
      if (had && had.ino === ino && had.live) continue;
      if (had) this.unwatch(dir);
      if (ino === "-") continue;
      let watcher: Deno.FsWatcher;
      try {
        watcher = this.watchFs(dir, { recursive: false });
      } catch {
        continue; // no watch (e.g. inotify limit): the stamps, contents stamped instead, and invalidate()
      }
      const watch: Watch = { ino, watcher, done: Promise.resolve(), live: true };
      watch.done = (async () => {
        try {
          for await (const _ of watcher) this.gen++;
        } catch {
          // the folder went away; the next get() sees its stamp change and watches again
        }
        watch.live = false;
        this.gen++;
      })();
      this.watchers.set(dir, watch);
    }
  }

  private unwatch(dir: string): void {
    const had = this.watchers.get(dir);
    this.watchers.delete(dir);
    try {
      had?.watcher.close();
    } catch { /* already closed */ }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.watchers.values()];
    this.watchers.clear();
    for (const w of all) {
      try {
        w.watcher.close();
      } catch { /* already closed */ }
    }
    await Promise.all(all.map((w) => w.done));
  }
}
