// A value built from the files of a folder (a listing), kept until something it was built from changes, so
// a request that finds nothing changed costs the same for 20 files as for 2,000.
//
// What tells us that something changed, and why each is needed:
// - invalidate(), called by the panel after its own changes, so nothing depends on timestamps or events
//   for those: the very next request sees them.
// - A watch on the folder (inotify): a file added, removed, renamed or written in place, by the game or by
//   hand, is reported within a millisecond or two, and the event marks the value stale. Files the value is
//   read from (`contents`, such as mod-list.json) are left to the watch on their folder too.
// - A stamp of a few paths (the folder itself, ...): inode, size, mtime and ctime. Adding, removing or
//   renaming an entry changes a folder's mtime and ctime. While the folder's watch works, the stamp is
//   compared at most once a second (VERIFY_MS), as a check on the watch: a stat on every request was a
//   quarter of what an unchanged list of 500 saves cost (16.0-18.3k req/s with it, 22.5-23.8k without).
//   The stamps (and the contents) are compared on every get() while a folder has no working watch (it
//   is missing, no inotify watch is left, or the check found a change the watch did not report, as on a
//   network filesystem whose other clients inotify does not see).
// - "Racy" stamps (as git calls them): file times come from a coarse kernel clock (a few ms per tick), and
//   Deno gives ctime in whole seconds, so two changes close together can leave the same times. A value
//   built within RACY_MS of the newest time in its stamp is not trusted and is built again on the next get().
// A file replaced with the same size and mtime still gets a new ctime (and usually a new inode): ctime
// cannot be set from user space, which is why it is part of every stamp.

import { dirname } from "node:path";

const RACY_MS = 100;
/** How often a folder whose watch works is stamped all the same, to find a watch that misses changes. */
const VERIFY_MS = 1000;

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

/** The stamps of `paths`, one string ("" for none). */
function stampAll(paths: string[]): string {
  return paths.length === 1 ? stampOf(paths[0]) : paths.map(stampOf).join("|");
}

/**
 * Whether `now` differs from `then` (stamps of the same paths) by a change to a path that kept its inode,
 * made more than RACY_MS before `at`: a change its folder's watch should have reported by then. (A path
 * with a new inode is a folder replaced, or a link pointed elsewhere: the rebuild watches it anew.)
 */
function missedByWatch(then: string, now: string, at: number): boolean {
  const before = then.split("|");
  return now.split("|").some((part, i) => {
    if (part === before[i] || part === "-") return false;
    return part.split(":")[0] === before[i]?.split(":")[0] && newestTime(part) < at - RACY_MS;
  });
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
   * Paths whose stamp tells that something changed (a folder: its entries); a function when the paths
   * themselves can change (it must then return the same array while they do not). A path that is also
   * in `watch` is compared once a second while its watch works, else on every get().
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
  /** Further paths to stamp on every get(), found while building (e.g. the info.json of unpacked mod folders). */
  extraStamps?: (value: T) => string[];
}

interface Kept<T> {
  v: T;
  /** The own stamps (`stamps`) when the value was built, and the paths they are of. */
  own: string;
  ownPaths: string[];
  /** Stamped on every get(): extraStamps of the value, and contents whose folder had no watch. */
  extra: string[];
  extraStamp: string;
  gen: number;
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
  private readonly now: () => number;
  /** When the own stamps of watched folders were last compared. */
  private verifiedAt = 0;
  /** A change the watches did not report was found: everything is stamped on every get() from then on. */
  private unreliable = false;

  /**
   * `watchFs` is for tests (a machine out of inotify watches, a watch that reports nothing); Deno.watchFs
   * otherwise. `now` is for tests too.
   */
  constructor(
    private readonly opts: FolderCacheOptions<T>,
    hooks: { watchFs?: typeof Deno.watchFs; now?: () => number } = {},
  ) {
    this.watchFs = hooks.watchFs ?? Deno.watchFs;
    this.now = hooks.now ?? Date.now;
  }

  /** Drops the value; the next get() builds it again. */
  invalidate(): void {
    this.gen++;
  }

  private contentsNow(): string[] {
    const c = this.opts.contents;
    return c === undefined ? NONE : typeof c === "function" ? c() : c;
  }

  private ownPaths(): string[] {
    return typeof this.opts.stamps === "function" ? this.opts.stamps() : this.opts.stamps;
  }

  /** True while each of `paths` is a folder with a working watch, which reports changes to its entries. */
  private watched(paths: string[]): boolean {
    if (this.unreliable) return false;
    for (const path of paths) {
      if (!this.watchers.get(path)?.live) return false;
    }
    return true;
  }

  /**
   * The kept value when nothing it depends on changed (checked now, as get() does), else undefined:
   * get() would build it. Lets a request that finds the value current answer without a promise.
   */
  peek(): T | undefined {
    const cur = this.value;
    if (!cur || !cur.trusted || cur.gen !== this.gen || cur.contents !== this.contentsNow()) return undefined;
    if (cur.extra.length && stampAll(cur.extra) !== cur.extraStamp) return undefined;
    const paths = this.ownPaths();
    const watched = paths === cur.ownPaths && this.watched(paths);
    if (watched) {
      const now = this.now();
      if (now - this.verifiedAt < VERIFY_MS) return cur.v;
      this.verifiedAt = now;
    }
    const own = stampAll(paths);
    if (own === cur.own) return cur.v;
    if (watched) {
      // Found by the check, not by the watch: the value is dropped here (a get() right after this look
      // would otherwise find the check done and keep it), and a change the watch should have reported
      // by now means it does not report them all.
      if (missedByWatch(cur.own, own, this.now())) this.unreliable = true;
      this.gen++;
    }
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
    const unwatched = contents.filter((path) => this.unreliable || !this.watchers.get(dirname(path))?.live);
    const gen = this.gen;
    const started = Date.now();
    const run = (async () => {
      // Stamped before reading, so a change during the build shows as a different stamp next time.
      const ownPaths = this.ownPaths();
      const own = stampAll(ownPaths);
      this.verifiedAt = this.now();
      const before = stampAll(unwatched);
      const v = await this.opts.build();
      const found = this.opts.extraStamps?.(v) ?? [];
      const extra = unwatched.length ? [...unwatched, ...found] : found;
      const extraStamp = found.length ? (before ? before + "|" : "") + stampAll(found) : before;
      const trusted = !this.closed && started - newestTime(own + "|" + extraStamp) > RACY_MS;
      this.value = { v, own, ownPaths, extra, extraStamp, gen, contents, trusted };
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
