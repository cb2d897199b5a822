// stampOf remembers missing paths to check them cheaply; a path that appears or goes must still show at once.

import assert from "node:assert/strict";
import { join } from "node:path";
import { stampOf } from "./foldercache.ts";

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
