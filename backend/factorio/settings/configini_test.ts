import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfigIni } from "./configini.ts";
import { startPanel } from "../../../tests/support/harness.ts";
import { installFakeFactorio } from "../../../tests/fake-factorio/install.ts";

Deno.test("the game's own config.ini: sections in order, commented defaults left out, paths as written", () => {
  const text = readFileSync(new URL("../../../tests/fake-factorio/data/config.ini", import.meta.url), "utf8");
  const groups = parseConfigIni(text);
  assert.deepEqual(Object.keys(groups), [
    "path",
    "general",
    "other",
    "interface",
    "controls",
    "sound",
    "map-view",
    "debug",
    "multiplayer-lobby",
    "graphics",
  ]);
  assert.deepEqual(groups.path, {
    "read-data": "__PATH__executable__/../../data",
    "write-data": "__PATH__executable__/../..",
  });
  assert.deepEqual(groups.other, {});
  assert.deepEqual(groups.controls, {});
});

Deno.test("config.ini edge cases", () => {
  const cases: [string, Record<string, Record<string, string>>][] = [
    // Keys before any section belong to no group.
    ["stray=1\n[a]\nk=v", { a: { k: "v" } }],
    // Both comment styles, also indented; blank lines.
    ["[a]\n; x=1\n# y=2\n   ;z=3\n\n  \nk=v", { a: { k: "v" } }],
    // CRLF and lone CR line ends, a byte order mark.
    ["\uFEFF[a]\r\nk=v\r\n[b]\rq=w\r", { a: { k: "v" }, b: { q: "w" } }],
    // Spaces around names and "=", "=" inside the value, an empty value.
    ["[ spaced ]\n  key  =  some value  \nurl=http://x/?a=b\nlocale=", {
      spaced: { key: "some value", url: "http://x/?a=b", locale: "" },
    }],
    // A ";" or "#" after "=" is part of the value.
    ["[a]\npassword=se;cret#1\ncolor=#ff0000", { a: { password: "se;cret#1", color: "#ff0000" } }],
    // Later duplicates win; a repeated section is one group in its first place.
    ["[a]\nk=1\n[b]\n[a]\nk=2\nj=3", { a: { k: "2", j: "3" }, b: {} }],
    // Lines that are neither: no "=", no key, an unclosed section header.
    ["[a]\njust words\n=orphan value\n[broken\nk=v", { a: { k: "v" } }],
    // Names that are special in JavaScript are plain names here.
    ["[__proto__]\nconstructor=1\n__proto__=2", { ["__proto__"]: { constructor: "1", ["__proto__"]: "2" } }],
    ["", {}],
  ];
  for (const [text, expected] of cases) {
    const groups = parseConfigIni(text);
    assert.equal(JSON.stringify(groups), JSON.stringify(expected), JSON.stringify(text));
    assert.equal(Object.getPrototypeOf(groups), Object.prototype);
  }
});

Deno.test("GET /api/config reads the game's config.ini; a missing one is a clear 404", async () => {
  const dir = mkdtempSync(join(tmpdir(), "factorio-config-"));
  installFakeFactorio(dir, "2.0");
  const panel = await startPanel({ args: ["--factorio-dir", dir] });
  try {
    const c = await panel.login();
    const r = await c.get("/api/config");
    assert.equal(r.status, 200);
    assert.equal(r.body.path["read-data"], "__PATH__executable__/../../data");
    assert.deepEqual(r.body.general, {});
    writeFileSync(join(dir, "config", "config.ini"), "[other]\nport=34200\n");
    assert.deepEqual((await c.get("/api/config")).body, { other: { port: "34200" } });
    rmSync(join(dir, "config", "config.ini"));
    const missing = await c.get("/api/config");
    assert.equal(missing.status, 404);
    assert.match(
      missing.body,
      /no config\.ini at .*config\.ini yet\. The game writes it the first time it starts\./,
    );
  } finally {
    await panel.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
