// The save and mod lists are cached until their folder changes (backend/lib/foldercache.ts). These tests
// change the folders behind the panel's back, and through the panel. A change through the panel is seen
// by the very next request. One behind its back (a file added, removed, renamed, replaced with one of the
// same size and mtime, or written in place) is seen once the folder watch reports it, a millisecond or two
// later: polled for here. The folders are settled first where it matters (times a minute old, ctime
// left behind), because a list built within a second of a change to its folder is not trusted and is
// made again on every request anyway, which would hide a missed change.

import assert from "node:assert/strict";
import {
  copyFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { withPanel } from "../../tests/support/harness.ts";
import { withModPanel } from "../../tests/support/modpanel.ts";
import { buildModZip } from "../../tests/fake-portal/catalog.ts";
import type { Mod, Save } from "../../shared/api.ts";

const SAVES = resolve(import.meta.dirname!, "../../tests/fixtures/saves");
const names = (list: Save[] | Mod[]) => list.map((s) => s.name);

/** Two zips of the same mod, name and version, with different titles and exactly the same size. */
async function sameSizeZips(): Promise<[Uint8Array, Uint8Array, string, string]> {
  const make = (title: string) =>
    buildModZip({
      name: "twin",
      version: "1.0.0",
      title,
      author: "t",
      factorio_version: "1.1",
      dependencies: [],
    });
  const first = await make("Title 1000");
  for (let i = 1001; i < 1999; i++) {
    const other = await make(`Title ${i}`);
    if (other.length === first.length) return [first, other, "Title 1000", `Title ${i}`];
  }
  throw new Error("no two zips of the same size");
}

/** Polls the list until `ok` holds: for changes behind the panel's back, which the folder watch reports. */
async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await get();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await get();
}

/** Sets a folder's times a minute back and waits until its ctime (whole seconds in Deno) is settled too. */
async function settle(dir: string): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  utimesSync(dir, old, old);
  await new Promise((r) => setTimeout(r, 2200));
}

Deno.test(
  "saves list: additions, removals, renames and in-place rewrites show up",
  withPanel(async (p) => {
    const c = await p.login();
    const dir = p.ctx.paths.saves;
    mkdirSync(dir, { recursive: true });
    const list = async () => (await c.get("/api/saves/list")).body as Save[];
    assert.deepEqual(names(await list()), ["Load Latest"]);
    await settle(dir);
    assert.deepEqual(names(await list()), ["Load Latest"], "a cached answer is the same answer");
    const listed = (want: string[]) =>
      eventually(list, (l) => names(l).join() === [...want, "Load Latest"].join());

    copyFileSync(join(SAVES, "test_0_17.zip"), join(dir, "b.zip"));
    assert.deepEqual(names(await listed(["b.zip"])), ["b.zip", "Load Latest"], "an added file is seen");
    copyFileSync(join(SAVES, "test_1_1.zip"), join(dir, "a10.zip"));
    copyFileSync(join(SAVES, "test_1_1.zip"), join(dir, "a9.zip"));
    assert.deepEqual(names(await listed(["a9.zip", "a10.zip", "b.zip"])), [
      "a9.zip",
      "a10.zip",
      "b.zip",
      "Load Latest",
    ], "numbers sort as numbers");

    await settle(dir);
    renameSync(join(dir, "a9.zip"), join(dir, "c.zip"));
    assert.deepEqual(names(await listed(["a10.zip", "b.zip", "c.zip"])), [
      "a10.zip",
      "b.zip",
      "c.zip",
      "Load Latest",
    ], "a rename is seen");
    await settle(dir);
    rmSync(join(dir, "a10.zip"));
    assert.deepEqual(
      names(await listed(["b.zip", "c.zip"])),
      ["b.zip", "c.zip", "Load Latest"],
      "a removal is seen",
    );

    // Replaced by rename (how the game and the panel write) with another file, its mtime set back.
    await settle(dir);
    const before = statSync(join(dir, "b.zip"));
    copyFileSync(join(SAVES, "test_1_1.zip"), join(dir, "tmp"));
    renameSync(join(dir, "tmp"), join(dir, "b.zip"));
    utimesSync(join(dir, "b.zip"), before.atime, before.mtime);
    const size = statSync(join(dir, "b.zip")).size;
    assert.notEqual(size, before.size);
    const b = (await eventually(list, (l) => l.find((s) => s.name === "b.zip")?.size === size)).find((s) =>
      s.name === "b.zip"
    )!;
    assert.equal(b.size, size, "the replacement's size is seen");

    // Written in place (no rename: the folder's own times do not change): the folder watch sees it.
    writeFileSync(join(dir, "c.zip"), new Uint8Array(12345));
    const seen = await eventually(list, (l) => l.find((s) => s.name === "c.zip")?.size === 12345);
    assert.equal(seen.find((s) => s.name === "c.zip")?.size, 12345, "an in-place rewrite is seen");

    // The panel's own change.
    assert.equal((await c.get("/api/saves/rm/b.zip")).status, 200);
    assert.deepEqual(
      names(await list()),
      ["c.zip", "Load Latest"],
      "a delete through the panel is seen at once",
    );
    await settle(dir);
    rmSync(dir, { recursive: true });
    assert.deepEqual(names(await listed([])), ["Load Latest"], "a removed saves folder lists nothing");
    mkdirSync(dir);
    copyFileSync(join(SAVES, "test_1_1.zip"), join(dir, "new.zip"));
    assert.deepEqual(
      names(await listed(["new.zip"])),
      ["new.zip", "Load Latest"],
      "a folder made again is listed",
    );
    await settle(dir);
    copyFileSync(join(SAVES, "test_1_1.zip"), join(dir, "newer.zip"));
    assert.deepEqual(
      names(await listed(["new.zip", "newer.zip"])),
      ["new.zip", "newer.zip", "Load Latest"],
      "and watched",
    );
  }),
);

Deno.test(
  "mods list: a zip replaced by one of the same size and mtime shows its new content",
  withModPanel(async (m) => {
    const list = async () => (await m.c.get("/api/mods/list")).body as Mod[];
    const [first, other, firstTitle, otherTitle] = await sameSizeZips();
    const path = join(m.modsDir, "twin_1.0.0.zip");
    writeFileSync(path, first);
    const when = new Date(Date.now() - 60_000);
    utimesSync(path, when, when);
    assert.equal((await list()).find((x) => x.name === "twin")?.title, firstTitle);
    await settle(m.modsDir);
    assert.equal((await list()).find((x) => x.name === "twin")?.title, firstTitle, "cached");

    // Replaced by rename: same size, same mtime, different content.
    writeFileSync(join(m.modsDir, "incoming"), other);
    utimesSync(join(m.modsDir, "incoming"), when, when);
    renameSync(join(m.modsDir, "incoming"), path);
    assert.equal(statSync(path).size, first.length);
    assert.equal(statSync(path).mtimeMs, when.getTime());
    const replaced = await eventually(list, (l) => l.find((x) => x.name === "twin")?.title === otherTitle);
    assert.equal(replaced.find((x) => x.name === "twin")?.title, otherTitle, "the replacement is read");
    await settle(m.modsDir);

    // Written in place with the old bytes and the same mtime: only the watch and the ctime tell.
    writeFileSync(path, first);
    utimesSync(path, when, when);
    const seen = await eventually(list, (l) => l.find((x) => x.name === "twin")?.title === firstTitle);
    assert.equal(seen.find((x) => x.name === "twin")?.title, firstTitle, "an in-place rewrite is read");
  }),
);

Deno.test(
  "mods list: mod-list.json, the game's version, unpacked folders and the panel's changes",
  withModPanel(async (m) => {
    const list = async () => (await m.c.get("/api/mods/list")).body as Mod[];
    m.addFixture("belt-balancer_2.1.3.zip");
    assert.equal((await list()).find((x) => x.name === "belt-balancer")?.enabled, true);

    // mod-list.json edited by hand (in place): the watch on the mods folder reports it.
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({ mods: [{ name: "base", enabled: true }, { name: "belt-balancer", enabled: false }] }),
    );
    const edited = await eventually(
      list,
      (l) => l.find((x) => x.name === "belt-balancer")?.enabled === false,
    );
    assert.equal(
      edited.find((x) => x.name === "belt-balancer")?.enabled,
      false,
      "a hand edit is seen",
    );

    // Through the panel.
    assert.equal((await m.c.post("/api/mods/toggle", { name: "belt-balancer" })).status, 200);
    assert.equal(
      (await list()).find((x) => x.name === "belt-balancer")?.enabled,
      true,
      "a toggle is seen at once",
    );
    assert.equal((await m.c.post("/api/mods/delete", { name: "belt-balancer" })).status, 200);
    assert.equal(
      (await list()).find((x) => x.name === "belt-balancer"),
      undefined,
      "a delete is seen at once",
    );

    // The game updated under the panel: its base version changes what fits. The watch on data/base reports
    // an in-place write; a new file put in place by rename changes nothing else either.
    const infoPath = join(m.factorioDir, "data", "base", "info.json");
    const base = (await list()).find((x) => x.name === "base")!;
    const info = JSON.parse(readFileSync(infoPath, "utf8"));
    writeFileSync(infoPath, JSON.stringify({ ...info, version: "1.1.999" }));
    assert.notEqual(base.version, "1.1.999");
    const updated = await eventually(list, (l) => l.find((x) => x.name === "base")?.version === "1.1.999");
    assert.equal(updated.find((x) => x.name === "base")?.version, "1.1.999", "a new game version is seen");
    writeFileSync(
      join(m.factorioDir, "data", "base", "info.json.new"),
      JSON.stringify({ ...info, version: "1.1.1000" }),
    );
    renameSync(join(m.factorioDir, "data", "base", "info.json.new"), infoPath);
    const replaced = await eventually(list, (l) => l.find((x) => x.name === "base")?.version === "1.1.1000");
    assert.equal(
      replaced.find((x) => x.name === "base")?.version,
      "1.1.1000",
      "a replaced info.json is seen",
    );

    // An unpacked mod folder, and a change to its info.json (the folder watch does not look inside it).
    const folder = join(m.modsDir, "unpacked_1.0.0");
    mkdirSync(folder);
    const unpacked = {
      name: "unpacked",
      version: "1.0.0",
      title: "Before",
      author: "t",
      factorio_version: "1.1",
    };
    writeFileSync(join(folder, "info.json"), JSON.stringify(unpacked));
    assert.equal((await list()).find((x) => x.name === "unpacked")?.title, "Before");
    writeFileSync(join(folder, "info.json"), JSON.stringify({ ...unpacked, title: "After!" }));
    assert.equal(
      (await list()).find((x) => x.name === "unpacked")?.title,
      "After!",
      "an unpacked mod's change is seen at once",
    );
  }),
);
