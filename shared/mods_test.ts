import assert from "node:assert/strict";
import { modFitsGame, parseDependency, whoCanJoin } from "./mods.ts";
import type { Mod } from "./api.ts";
import { factorioVersionFits, newestFirst, newestUpdate, satisfies } from "./versions.ts";

Deno.test("a mod fits the game when major.minor match; 1.0 also takes 0.18", () => {
  const table: [game: string, mod: string, fits: boolean][] = [
    ["1.1.110", "1.1", true],
    ["1.1.110", "1.1.0.0", true],
    ["1.1.110", "1.0", false],
    ["1.1.110", "0.18", false],
    ["1.1.110", "2.0", false],
    ["1.0.0", "1.0", true],
    ["1.0.0", "0.18", true],
    ["1.0.0", "0.17", false],
    ["0.18.47", "1.0", false],
    ["0.18.47", "0.18", true],
    ["2.0.72", "2.0", true],
    ["2.0.72", "1.1", false],
    ["2.0.72", "2.1", false],
    ["2.1.12", "2.1", true],
    ["2.1.12", "2.0", false],
    ["2.1.12", "nonsense", false],
    ["", "2.1", false],
  ];
  for (const [game, mod, fits] of table) {
    assert.equal(factorioVersionFits(game, mod), fits, `${game} / ${mod}`);
  }
});

Deno.test("the update is the newest release newer than the installed one that fits the game", () => {
  const r = (version: string, factorio_version: string) => ({ version, factorio_version });
  const releases = [
    r("2.1.3", "0.18"),
    r("3.0.0", "1.1"),
    r("3.1.0", "1.1"),
    r("4.0.0", "2.0"),
    r("4.1.0", "2.1"),
  ];
  const table: [game: string, installed: string, expected: string | null][] = [
    ["1.1.110", "2.1.3", "3.1.0"],
    ["1.1.110", "3.1.0", null],
    ["1.1.110", "3.1.1", null], // installed is newer than anything on the portal
    ["1.0.0", "2.0.0", "2.1.3"], // 1.0 accepts the 0.18 release
    ["1.0.0", "2.1.3", null],
    ["0.18.47", "2.0.0", "2.1.3"],
    ["2.0.72", "3.0.0", "4.0.0"], // never the 2.1 release on 2.0
    ["2.0.72", "4.0.0", null],
    ["2.1.12", "3.0.0", "4.1.0"], // never the 2.0 release on 2.1
    ["2.1.12", "not a version", null],
  ];
  for (const [game, installed, expected] of table) {
    assert.equal(
      newestUpdate(installed, releases, game)?.version ?? null,
      expected,
      `${game}, installed ${installed}`,
    );
  }
  // Order on the portal does not matter, and versions compare numerically.
  assert.equal(newestUpdate("1.9.0", [r("1.10.0", "1.1"), r("1.9.1", "1.1")], "1.1.0")?.version, "1.10.0");
  assert.deepEqual(
    newestFirst([r("1.9.1", "1.1"), r("1.10.0", "1.1"), r("0.1.0", "1.1")]).map((x) => x.version),
    [
      "1.10.0",
      "1.9.1",
      "0.1.0",
    ],
  );
});

Deno.test("dependencies: every prefix, optional spaces, names with spaces", () => {
  assert.deepEqual(parseDependency("base >= 1.1.0"), {
    kind: "required",
    name: "base",
    op: ">=",
    version: "1.1.0",
  });
  assert.deepEqual(parseDependency("base >=1.1"), {
    kind: "required",
    name: "base",
    op: ">=",
    version: "1.1",
  });
  assert.deepEqual(parseDependency("? bobplates"), { kind: "optional", name: "bobplates" });
  assert.deepEqual(parseDependency("?bobplates>0.1"), {
    kind: "optional",
    name: "bobplates",
    op: ">",
    version: "0.1",
  });
  assert.deepEqual(parseDependency("(?) boblogistics >= 1.1.0"), {
    kind: "hidden-optional",
    name: "boblogistics",
    op: ">=",
    version: "1.1.0",
  });
  assert.deepEqual(parseDependency("! bad-mod"), { kind: "incompatible", name: "bad-mod" });
  assert.deepEqual(parseDependency("~ flib >= 0.12"), {
    kind: "no-load-order",
    name: "flib",
    op: ">=",
    version: "0.12",
  });
  assert.deepEqual(parseDependency("+ quality"), { kind: "recommended", name: "quality" });
  assert.deepEqual(parseDependency("Squeak Through = 1.8.2"), {
    kind: "required",
    name: "Squeak Through",
    op: "=",
    version: "1.8.2",
  });
  assert.deepEqual(parseDependency("  base  "), { kind: "required", name: "base" });
  for (const bad of ["", "   ", "?", ">= 1.0", "base >= ", 42, null]) {
    assert.equal(parseDependency(bad), null, String(bad));
  }
});

Deno.test("version conditions", () => {
  assert.ok(satisfies("1.1.6", ">=", "1.1.0"));
  assert.ok(!satisfies("1.0.0", ">=", "1.1"));
  assert.ok(satisfies("1.1", "=", "1.1.0.0"));
  assert.ok(satisfies("1.2", ">", "1.1.99"));
  assert.ok(satisfies("0.9", "<", "1.0") && satisfies("1.0", "<=", "1.0"));
  assert.ok(!satisfies("x", ">=", "1.0"));
});

Deno.test("the Compatibility column: factorio_version and the base dependency", () => {
  assert.ok(modFitsGame("1.1.110", "1.1", ["base >= 1.1.0", "(?) boblogistics >= 1.1.0"]));
  assert.ok(!modFitsGame("1.1.110", "1.1", ["base >= 1.1.111"]));
  assert.ok(
    modFitsGame("1.1.110", "1.1", ["? base >= 1.1.111"]),
    "an optional base dependency does not count",
  );
  assert.ok(modFitsGame("1.0.0", "0.18", ["base >= 0.18.0"]));
  assert.ok(!modFitsGame("1.1.110", "0.18", ["base >= 0.18.0"]));
  assert.ok(!modFitsGame(null, "1.1", []), "no game version, no compatibility");
  assert.ok(modFitsGame("2.0.72", "2.0", []));
});

Deno.test("who can join: Space Age content (recycler on 2.1 included) keeps vanilla clients out; other mods are downloaded", () => {
  const mod = (name: string, enabled: boolean, built_in = false, error: string | null = null): Mod => ({
    name,
    title: name,
    author: "",
    version: "1.0.0",
    file_name: "",
    factorio_version: "2.1.0.0",
    dependencies: [],
    compatibility: true,
    enabled,
    built_in,
    error,
    other_versions: [],
  });
  const game21 = (on: string[]) =>
    ["base", "elevated-rails", "quality", "recycler", "space-age"].map((n) =>
      mod(n, n === "base" || on.includes(n), true)
    );
  assert.deepEqual(whoCanJoin(game21(["elevated-rails", "quality", "recycler", "space-age"])), {
    vanilla: false,
    text:
      "Vanilla clients cannot join: elevated-rails, quality, recycler and space-age are on, which need Space Age. Switch them off to let players without Space Age join.",
  });
  assert.deepEqual(whoCanJoin(game21(["recycler"])), {
    vanilla: false,
    text:
      "Vanilla clients cannot join: recycler is on, which needs Space Age. Switch it off to let players without Space Age join.",
  });
  assert.deepEqual(whoCanJoin(game21([])), {
    vanilla: true,
    text: "Vanilla clients can join: no Space Age content and no other mods are on.",
  });
  assert.deepEqual(
    whoCanJoin([
      ...game21([]),
      mod("a", true),
      mod("b", true),
      mod("c", false),
      mod("broken.zip", false, false, "no info.json"),
    ]),
    {
      vanilla: false,
      text:
        "Players without Space Age can join with the same 2 mods, which their game offers to download when they join.",
    },
  );
  // 1.1: no expansion at all.
  assert.deepEqual(whoCanJoin([mod("base", true, true)]), {
    vanilla: true,
    text: "Vanilla clients can join: no mods are on.",
  });
  assert.equal(
    whoCanJoin([mod("base", true, true), mod("a", true)]).text,
    "Players can join with the same mod, which their game offers to download when they join.",
  );
});
