// stampOf remembers missing paths to check them cheaply; a path that appears or goes must still show at once.

import assert from "node:assert/strict";
import { join } from "node:path";
import { FolderCache, stampOf } from "./foldercache.ts";

Deno.test("a missing path in a folder unchanged for a while: seen as soon as it is created, renamed or linked in", () => {
  const dir = Deno.makeTempDirSync();
  // Outside the folder: renamed in from there, the file is the folder's only change.
  const aside = join(dir, "..", `${dir.split("/").pop()}-aside`);
  const old = new Date(Date.now() - 60_000);
  try {
    const path = join(dir, "mod-list.json");
    for (
      const make of [
        () => Deno.writeTextFileSync(path, "{}"),
        () => Deno.renameSync(aside, path),
        () => Deno.symlinkSync(join(dir, "target"), path),
      ]
    ) {
      Deno.writeTextFileSync(join(dir, "target"), "{}");
      Deno.writeTextFileSync(aside, "{}");
      Deno.utimeSync(dir, old, old); // the folder settled long ago: the cheap check is trusted
      assert.equal(stampOf(path), "-");
      assert.equal(stampOf(path), "-", "still missing, from the folder's stamp");
      make();
      assert.notEqual(stampOf(path), "-");
      Deno.removeSync(path);
      assert.equal(stampOf(path), "-");
    }
    // A folder changed just now is not trusted: an entry made in the same clock step is still seen.
    const now = new Date();
    Deno.utimeSync(dir, now, now);
    assert.equal(stampOf(path), "-");
    Deno.writeTextFileSync(path, "{}");
    Deno.utimeSync(dir, now, now); // as if the entry came in the same clock step as the look before it
    assert.notEqual(stampOf(path), "-");
  } finally {
    Deno.removeSync(dir, { recursive: true });
    try {
      Deno.removeSync(aside);
    } catch {
      // renamed into the folder last
    }
  }
});

Deno.test("a stamped path that was missing is seen as soon as it exists, and as missing once it is gone", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = join(dir, "mod-list.json");
    assert.equal(stampOf(path), "-");
    assert.equal(stampOf(path), "-", "still missing, now from the cheap check");
    Deno.writeTextFileSync(path, "{}");
    const first = stampOf(path);
    assert.notEqual(first, "-");
    assert.equal(first.split(":")[1], "2", "the size is in the stamp");
    Deno.removeSync(path);
    assert.equal(stampOf(path), "-");
    Deno.writeTextFileSync(path, "{ }");
    const again = stampOf(path);
    assert.notEqual(again, "-");
    assert.notEqual(again, first);
    // A folder appearing where nothing was counts too (an unpacked mod).
    const folder = join(dir, "mod_1.0.0");
    assert.equal(stampOf(folder), "-");
    Deno.mkdirSync(folder);
    assert.notEqual(stampOf(folder), "-");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("peek gives the kept value only while it is current; get builds it again", async () => {
  const dir = Deno.makeTempDirSync();
  let builds = 0;
  const cache = new FolderCache({ watch: [], stamps: [dir], build: () => Promise.resolve(++builds) });
  try {
    const old = new Date(Date.now() - 60_000);
    Deno.utimeSync(dir, old, old);
    // A value is trusted once the folder's ctime (whole seconds here, so up to a second late, and set
    // just now by utime) is more than RACY_MS old.
    await new Promise((r) => setTimeout(r, 2200));
    assert.equal(cache.peek(), undefined, "nothing built yet");
    assert.equal(await cache.get(), 1);
    assert.equal(cache.peek(), 1);
    assert.equal(cache.peek(), 1, "a look builds nothing");
    cache.invalidate();
    assert.equal(cache.peek(), undefined, "the panel said it changed the folder");
    assert.equal(await cache.get(), 2);
    assert.equal(cache.peek(), 2);
    Deno.writeTextFileSync(join(dir, "new.zip"), "x");
    Deno.utimeSync(dir, old, new Date(Date.now() - 30_000)); // an entry added: the folder's stamp changed
    assert.equal(cache.peek(), undefined, "a file added behind the panel's back");
    assert.equal(await cache.get(), 3);
    assert.equal(builds, 3);
  } finally {
    await cache.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A folder and a file in it, both settled (times a minute old, ctime left behind): a value built now is trusted. */
async function settledFile(text: string): Promise<{ dir: string; file: string }> {
  const dir = Deno.makeTempDirSync();
  const file = join(dir, "mod-list.json");
  Deno.writeTextFileSync(file, text);
  const old = new Date(Date.now() - 60_000);
  Deno.utimeSync(file, old, old);
  Deno.utimeSync(dir, old, old);
  // Deno gives ctime in whole seconds and the cache counts it a second late (RACY_MS on top).
  await new Promise((r) => setTimeout(r, 2200));
  return { dir, file };
}

/** get() until `ok` holds; for changes the folder watch reports. */
async function eventually<T>(cache: FolderCache<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await cache.get();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  return await cache.get();
}

Deno.test("contents: an in-place edit is reported by the watch on the file's folder", async () => {
  const { dir, file } = await settledFile("first");
  let builds = 0;
  const cache = new FolderCache({
    watch: [],
    stamps: [],
    contents: [file],
    build: () => (builds++, Promise.resolve(Deno.readTextFileSync(file))),
  });
  try {
    assert.equal(await cache.get(), "first");
    assert.equal(cache.peek(), "first", "kept: the file is not stamped while its folder is watched");
    assert.equal(builds, 1);
    Deno.writeTextFileSync(file, "second, longer");
    assert.equal(await eventually(cache, (v) => v === "second, longer"), "second, longer");
  } finally {
    await cache.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("contents: without a watch (none left) the file is stamped, and an edit is seen by the next get", async () => {
  const { dir, file } = await settledFile("first");
  const noWatch = (() => {
    throw new Error("inotify watch limit reached");
  }) as typeof Deno.watchFs;
  const cache = new FolderCache({
    watch: [dir],
    stamps: [],
    contents: [file],
    build: () => Promise.resolve(Deno.readTextFileSync(file)),
  }, {
    watchFs: noWatch,
  });
  try {
    assert.equal(await cache.get(), "first");
    assert.equal(cache.peek(), "first", "trusted and kept while nothing changed");
    Deno.writeTextFileSync(file, "second, longer");
    assert.equal(cache.peek(), undefined, "the edit shows in the file's stamp");
    assert.equal(await cache.get(), "second, longer");
  } finally {
    await cache.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("contents: a file whose folder appears later, and a new list of files, are seen and then watched", async () => {
  const { dir, file } = await settledFile("first");
  const later = join(dir, "data", "base", "info.json");
  let contents = [file, later];
  const read = (p: string) => {
    try {
      return Deno.readTextFileSync(p);
    } catch {
      return "-";
    }
  };
  const cache = new FolderCache({
    watch: [],
    stamps: [],
    contents: () => contents,
    build: () => Promise.resolve(contents.map(read).join(" ")),
  });
  try {
    assert.equal(await cache.get(), "first -");
    Deno.mkdirSync(join(dir, "data", "base"), { recursive: true });
    Deno.writeTextFileSync(later, "base");
    assert.equal(
      await cache.get(),
      "first base",
      "stamped while its folder is missing: seen by the next get",
    );
    Deno.writeTextFileSync(later, "base, edited");
    assert.equal(
      await eventually(cache, (v) => v === "first base, edited"),
      "first base, edited",
      "then watched",
    );
    const other = join(dir, "other.json");
    Deno.writeTextFileSync(other, "other");
    contents = [other];
    assert.equal(await cache.get(), "other", "a new list of files builds the value again");
    Deno.writeTextFileSync(other, "other, edited");
    assert.equal(await eventually(cache, (v) => v === "other, edited"), "other, edited");
  } finally {
    await cache.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A folder whose times are a minute old and whose ctime has settled: a value built from it now is trusted. */
async function settledDir(dir = Deno.makeTempDirSync()): Promise<string> {
  const old = new Date(Date.now() - 60_000);
  Deno.utimeSync(dir, old, old);
  await new Promise((r) => setTimeout(r, 2200));
  return dir;
}

const entries = (dir: string) => () =>
  Promise.resolve([...Deno.readDirSync(dir)].map((e) => e.name).sort().join(" "));

Deno.test("a watched folder: an entry added behind the panel's back is seen once the watch reports it", async () => {
  const dir = await settledDir();
  const cache = new FolderCache({ watch: [dir], stamps: [dir], build: entries(dir) });
  try {
    assert.equal(await cache.get(), "");
    assert.equal(cache.peek(), "", "trusted");
    Deno.writeTextFileSync(join(dir, "a.zip"), "x");
    assert.equal(await eventually(cache, (v) => v === "a.zip"), "a.zip");
    Deno.renameSync(join(dir, "a.zip"), join(dir, "b.zip"));
    assert.equal(await eventually(cache, (v) => v === "b.zip"), "b.zip");
    Deno.removeSync(join(dir, "b.zip"));
    assert.equal(await eventually(cache, (v) => v === ""), "");
  } finally {
    await cache.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A watch that starts but never reports anything (as inotify on a network filesystem, for others' changes). */
const deafWatch = (() => {
  let stop = () => {};
  const closed = new Promise<void>((r) => stop = r);
  return {
    close: () => stop(),
    [Symbol.dispose]: () => stop(),
    [Symbol.asyncIterator]: () => ({ next: () => closed.then(() => ({ done: true, value: undefined })) }),
  };
}) as unknown as typeof Deno.watchFs;

Deno.test("a watch that misses changes: the folder is still compared once a second, then on every get", async () => {
  const dir = await settledDir();
  let clock = Date.now();
  const cache = new FolderCache({ watch: [dir], stamps: [dir], build: entries(dir) }, {
    watchFs: deafWatch,
    now: () => clock,
  });
  try {
    assert.equal(await cache.get(), "");
    assert.equal(cache.peek(), "", "trusted");
    Deno.writeTextFileSync(join(dir, "a.zip"), "x");
    assert.equal(
      cache.peek(),
      "",
      "not stamped on every get while the folder's watch works (this one says nothing)",
    );
    clock += 5000;
    assert.equal(cache.peek(), undefined, "the check a second later finds the change");
    assert.equal(await cache.get(), "a.zip");
    // From then on the folder is stamped on every get, even with the clock standing still.
    await settledDir(dir);
    assert.equal(await cache.get(), "a.zip");
    assert.equal(cache.peek(), "a.zip", "trusted again once settled");
    Deno.writeTextFileSync(join(dir, "b.zip"), "x");
    assert.equal(cache.peek(), undefined, "seen by the very next get");
    assert.equal(await cache.get(), "a.zip b.zip");
  } finally {
    await cache.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a watched folder removed and made again is seen, and watched anew", async () => {
  const parent = Deno.makeTempDirSync();
  const dir = join(parent, "saves");
  Deno.mkdirSync(dir);
  await settledDir(dir);
  const list = () => {
    try {
      return entries(dir)();
    } catch {
      return Promise.resolve("(none)");
    }
  };
  const cache = new FolderCache({ watch: [dir], stamps: [dir], build: list });
  try {
    assert.equal(await cache.get(), "");
    Deno.removeSync(dir);
    assert.equal(await eventually(cache, (v) => v === "(none)"), "(none)");
    Deno.mkdirSync(dir);
    Deno.writeTextFileSync(join(dir, "new.zip"), "x");
    assert.equal(
      await cache.get(),
      "new.zip",
      "no watch while it was missing: stamped, seen by the next get",
    );
    await settledDir(dir);
    assert.equal(await cache.get(), "new.zip");
    Deno.writeTextFileSync(join(dir, "other.zip"), "x");
    assert.equal(
      await eventually(cache, (v) => v === "new.zip other.zip"),
      "new.zip other.zip",
      "watched again",
    );
  } finally {
    await cache.close();
    Deno.removeSync(parent, { recursive: true });
  }
});
