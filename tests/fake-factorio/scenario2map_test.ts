// The simulator's --scenario2map (-m) against what the real binary does: a plain scenario NAME (from
// <write-data>/scenarios) becomes saves/NAME.zip, a mod's MOD/NAME becomes saves/MOD/NAME.zip, the mod must
// be enabled in --mod-directory, and an unknown scenario is a non-zero exit with an error and nothing written.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type FakeFactorio, installFakeFactorio } from "./install.ts";
import { SimProcess } from "./sim.ts";
import { readSave } from "./savefile.ts";
import { buildModZip } from "../fake-portal/catalog.ts";

function withFactorio(fn: (f: FakeFactorio) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "fake-factorio-s2m-"));
    try {
      await fn(installFakeFactorio(dir, "2.0"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function run(f: FakeFactorio, args: string[]) {
  const p = new SimProcess(f.binary, args, {});
  const status = await p.exited;
  return { status, text: p.lines.join("\n") };
}

Deno.test("--scenario2map: the user's scenario to saves/NAME.zip, a mod's to saves/MOD/NAME.zip", withFactorio(async (f) => {
  mkdirSync(join(f.dir, "scenarios", "my-arena"), { recursive: true });
  writeFileSync(join(f.dir, "scenarios", "my-arena", "control.lua"), "-- arena\n");
  let r = await run(f, ["--scenario2map", "my-arena", "--mod-directory", join(f.dir, "mods")]);
  assert.equal(r.status.code, 0, r.text);
  assert.equal((await readSave(join(f.dir, "saves", "my-arena.zip"))).state.scenario, "my-arena");

  // The short form, and the game's own scenarios through the base mod.
  r = await run(f, ["-m", "base/freeplay"]);
  assert.equal(r.status.code, 0, r.text);
  assert.equal((await readSave(join(f.dir, "saves", "base", "freeplay.zip"))).state.scenario, "base/freeplay");

  writeFileSync(
    join(f.dir, "mods", "arena-mod_1.0.0.zip"),
    await buildModZip({ name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" }, { "scenarios/arena/control.lua": "-- arena\n" }),
  );
  r = await run(f, ["--scenario2map", "arena-mod/arena", "--mod-directory", join(f.dir, "mods")]);
  assert.equal(r.status.code, 0, r.text);
  const { state } = await readSave(join(f.dir, "saves", "arena-mod", "arena.zip"));
  assert.equal(state.scenario, "arena-mod/arena");
}));

Deno.test("--scenario2map: unknown scenarios, bare names of the game's scenarios and disabled mods fail, writing nothing", withFactorio(async (f) => {
  const before = readdirSync(join(f.dir, "saves"));
  for (const name of ["moon", "freeplay", "arena-mod/arena", "base/moon"]) {
    const r = await run(f, ["--scenario2map", name]);
    assert.notEqual(r.status.code, 0, name);
    assert.match(r.text, new RegExp(`Error .*Scenario ${name} not found`), name);
  }
  // A mod's scenario needs the mod enabled.
  writeFileSync(
    join(f.dir, "mods", "arena-mod_1.0.0.zip"),
    await buildModZip({ name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" }, { "scenarios/arena/control.lua": "-- arena\n" }),
  );
  writeFileSync(join(f.dir, "mods", "mod-list.json"), JSON.stringify({ mods: [{ name: "base", enabled: true }, { name: "arena-mod", enabled: false }] }));
  const r = await run(f, ["--scenario2map", "arena-mod/arena"]);
  assert.notEqual(r.status.code, 0);
  assert.deepEqual(readdirSync(join(f.dir, "saves")), before);
  assert.equal(existsSync(join(f.dir, "saves", "arena-mod")), false);
}));
