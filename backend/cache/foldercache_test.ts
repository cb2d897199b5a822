// stampOf remembers missing paths to check them cheaply; a path that appears or goes must still show at once.

import assert from "node:assert/strict";
import { join } from "node:path";
import { stampOf } from "./foldercache.ts";

Deno.test("a missing path in a folder unchanged for a while: seen as soon as it is created, renamed or linked in", () => {
  const dir = Deno.makeTempDirSync();
  const old = new Date(Date.now() - 60_000);
  try {
    const path = join(dir, "mod-list.json");
    for (const make of [
      () => Deno.writeTextFileSync(path, "{}"),
      () => Deno.renameSync(join(dir, "..", `${dir.split("/").pop()}-aside`), path),
      () => Deno.symlinkSync(join(dir, "target"), path),
    ]) {
      Deno.writeTextFileSync(join(dir, "target"), "{}");
      Deno.writeTextFileSync(join(dir, "..", `${dir.split("/").pop()}-aside`), "{}");
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
