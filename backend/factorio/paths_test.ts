import assert from "node:assert/strict";
import { inside, safeName, saveFileName } from "./paths.ts";
import { Invalid } from "../lib/errors.ts";

Deno.test("safeName accepts plain names and adds the extension", () => {
  assert.equal(safeName("my world", "Save name", { ext: ".zip" }), "my world.zip");
  assert.equal(safeName("base.ZIP", "Save name", { ext: ".zip" }), "base.ZIP");
  assert.equal(safeName("  padded.zip ", "Save name", { ext: ".zip" }), "padded.zip");
  assert.equal(safeName("Krastorio2_1.3.24.zip", "Mod file name"), "Krastorio2_1.3.24.zip");
  assert.equal(safeName("Ünïcödé 世界", "Mod pack name"), "Ünïcödé 世界");
});

Deno.test("safeName refuses traversal, separators, control characters and reserved names", () => {
  const bad = [
    "",
    "   ",
    "..",
    ".",
    "../x",
    "a/../b",
    "a/b",
    "a\\b",
    "/etc/passwd",
    "x\u0000y",
    "x\ny",
    "x\u007f",
    ".hidden",
    "a..b",
    "con:1",
    "a*b",
    "x".repeat(300),
    ".zip",
  ];
  for (const name of bad) {
    assert.throws(() => safeName(name, "Save name", { ext: ".zip" }), Invalid, JSON.stringify(name));
  }
  assert.throws(() => safeName(42, "Save name"), Invalid);
  assert.throws(() => safeName(undefined, "Save name"), /Save name is required/);
});

Deno.test("safeName refuses the game's autosave names only when asked", () => {
  assert.throws(
    () => safeName("_autosave1", "Save name", { ext: ".zip", forbidAutosavePrefix: true }),
    /_autosave/,
  );
  assert.throws(() => safeName("_AUTOSAVE3.zip", "Save name", { forbidAutosavePrefix: true }), /_autosave/);
  assert.equal(safeName("_autosave1.zip", "Save name"), "_autosave1.zip");
});

Deno.test("inside keeps the result directly in the directory", () => {
  assert.equal(inside("/srv/saves", "a.zip"), "/srv/saves/a.zip");
  assert.throws(() => inside("/srv/saves", "../a.zip"), Invalid);
  assert.throws(() => inside("/srv/saves", "sub/a.zip"), Invalid);
  assert.throws(() => inside("/srv/saves", ""), Invalid);
});

Deno.test("saveFileName: one set of rules for every saves route", () => {
  assert.equal(saveFileName("world"), "world.zip");
  assert.equal(saveFileName("world.zip"), "world.zip");
  assert.equal(
    saveFileName("_autosave3"),
    "_autosave3.zip",
    "existing autosaves may be downloaded and deleted",
  );
  assert.equal(saveFileName("Load Latest"), "Load Latest.zip", "only a name: it never matches a listed file");
  for (
    const bad of [
      "../world",
      "a/b",
      "a\\b",
      "..",
      "x\u0000",
      "\u001b[31m",
      ".world",
      "",
      "w.tmp",
      "W.TMP.zip",
    ]
  ) {
    assert.throws(() => saveFileName(bad), Invalid, JSON.stringify(bad));
  }
  assert.throws(() => saveFileName(undefined, { what: "Savefile Name" }), {
    message: "Savefile Name is required",
  });
  for (
    const reserved of ["_autosave1", "_AUTOSAVE2.zip", "Load Latest", "load latest.zip", " LOAD LATEST "]
  ) {
    assert.throws(() => saveFileName(reserved, { creating: true }), Invalid, reserved);
  }
  assert.equal(saveFileName("my autosave", { creating: true }), "my autosave.zip");
});
