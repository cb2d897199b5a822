// The simulator's world flags against what the real binary offers: --dump-data, --generate-map-preview
// (a real PNG that follows the settings), --create with map settings files, a seed and a preset, and
// --scenario2map (-m): a plain scenario NAME (from <write-data>/scenarios) becomes saves/NAME.zip, a mod's
// MOD/NAME becomes saves/MOD/NAME.zip, the mod must be enabled, an unknown scenario is a non-zero exit with
// an error and nothing written.

import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type FakeFactorio, installFakeFactorio, type SimulatedVersion } from "./install.ts";
import { SimProcess } from "./sim.ts";
import { readSave } from "./savefile.ts";
import { buildModZip } from "../fake-portal/catalog.ts";

function withFactorio(version: SimulatedVersion, fn: (f: FakeFactorio) => Promise<void> | void) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "fake-factorio-world-"));
    try {
      await fn(installFakeFactorio(dir, version));
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

function pngSize(b: Uint8Array): [number, number] {
  assert.deepEqual([...b.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  const v = new DataView(b.buffer, b.byteOffset);
  assert.equal(new TextDecoder().decode(b.subarray(12, 16)), "IHDR");
  return [v.getUint32(16), v.getUint32(20)];
}

Deno.test(
  "the game's example settings files of the version are installed",
  withFactorio("2.1", (f) => {
    const gen = JSON.parse(readFileSync(join(f.dir, "data/map-gen-settings.example.json"), "utf8"));
    assert.ok("autoplace_controls" in gen && "cliff_settings" in gen);
    const ms = JSON.parse(readFileSync(join(f.dir, "data/map-settings.example.json"), "utf8"));
    assert.equal("steering" in ms, false, "2.1 dropped steering");
  }),
);

Deno.test(
  "--dump-data: presets, and on 2.0 with Space Age the five planets' controls",
  withFactorio("2.0", async (f) => {
    const { status, text } = await run(f, ["--dump-data"]);
    assert.equal(status.code, 0, text);
    const dump = JSON.parse(readFileSync(join(f.dir, "script-output/data-raw-dump.json"), "utf8"));
    assert.deepEqual(Object.keys(dump.planet), ["nauvis", "vulcanus", "gleba", "fulgora", "aquilo"]);
    assert.ok("tungsten_ore" in dump.planet.vulcanus.map_gen_settings.autoplace_controls);
    assert.ok("rich-resources" in dump["map-gen-presets"].default);
    writeFileSync(
      join(f.dir, "mods/mod-list.json"),
      JSON.stringify({ mods: [{ name: "base", enabled: true }, { name: "space-age", enabled: false }] }),
    );
    await run(f, ["--dump-data"]);
    const without = JSON.parse(readFileSync(join(f.dir, "script-output/data-raw-dump.json"), "utf8"));
    assert.deepEqual(Object.keys(without.planet), ["nauvis"]);
  }),
);

Deno.test(
  "--generate-map-preview: a PNG of the asked size that changes with the settings",
  withFactorio("2.0", async (f) => {
    const out = join(f.dir, "preview.png");
    const gen = join(f.dir, "gen.json");
    writeFileSync(
      gen,
      JSON.stringify({ autoplace_controls: { "iron-ore": { frequency: 1, size: 1, richness: 1 } } }),
    );
    let r = await run(f, [
      "--generate-map-preview",
      out,
      "--map-preview-size",
      "256",
      "--map-gen-settings",
      gen,
      "--map-gen-seed",
      "42",
    ]);
    assert.equal(r.status.code, 0, r.text);
    const first = readFileSync(out);
    assert.deepEqual(pngSize(first), [256, 256]);
    writeFileSync(
      gen,
      JSON.stringify({ autoplace_controls: { "iron-ore": { frequency: 3, size: 2, richness: 1 } } }),
    );
    r = await run(f, [
      "--generate-map-preview",
      out,
      "--map-preview-size",
      "256",
      "--map-gen-settings",
      gen,
      "--map-gen-seed",
      "42",
      "--map-preview-planet",
      "vulcanus",
    ]);
    assert.equal(r.status.code, 0, r.text);
    assert.notDeepEqual(readFileSync(out), first);
    r = await run(f, ["--generate-map-preview", out, "--map-preview-planet", "mars"]);
    assert.equal(r.status.code, 1);
    assert.match(r.text, /Unknown planet: mars/);
  }),
);

Deno.test(
  "--create keeps the settings, seed and preset it was given; bad settings end the run",
  withFactorio("1.1", async (f) => {
    const gen = join(f.dir, "gen.json");
    const ms = join(f.dir, "ms.json");
    writeFileSync(
      gen,
      JSON.stringify({ width: 1000, autoplace_controls: { coal: { frequency: 2, size: 1, richness: 1 } } }),
    );
    writeFileSync(ms, JSON.stringify({ pollution: { enabled: false } }));
    const save = join(f.dir, "saves/world.zip");
    let r = await run(f, [
      "--create",
      save,
      "--map-gen-settings",
      gen,
      "--map-settings",
      ms,
      "--map-gen-seed",
      "123",
      "--preset",
      "rail-world",
    ]);
    assert.equal(r.status.code, 0, r.text);
    const { state } = await readSave(save);
    assert.equal(state.seed, 123);
    assert.equal(state.preset, "rail-world");
    assert.deepEqual(state.map_gen_settings, {
      width: 1000,
      autoplace_controls: { coal: { frequency: 2, size: 1, richness: 1 } },
    });
    assert.deepEqual(state.map_settings, { pollution: { enabled: false } });

    writeFileSync(gen, "{ not json");
    r = await run(f, ["--create", join(f.dir, "saves/bad.zip"), "--map-gen-settings", gen]);
    assert.equal(r.status.code, 1);
    assert.match(r.text, /Failed to load map gen settings from/);
    r = await run(f, ["--create", join(f.dir, "saves/bad.zip"), "--preset", "moon-world"]);
    assert.match(r.text, /Unknown map gen preset: moon-world/);
    assert.equal(existsSync(join(f.dir, "saves/bad.zip")), false);
  }),
);

Deno.test(
  "--scenario2map: the user's scenario to saves/NAME.zip, a mod's to saves/MOD/NAME.zip",
  withFactorio("2.0", async (f) => {
    mkdirSync(join(f.dir, "scenarios", "my-arena"), { recursive: true });
    writeFileSync(join(f.dir, "scenarios", "my-arena", "control.lua"), "-- arena\n");
    let r = await run(f, ["--scenario2map", "my-arena", "--mod-directory", join(f.dir, "mods")]);
    assert.equal(r.status.code, 0, r.text);
    assert.equal((await readSave(join(f.dir, "saves", "my-arena.zip"))).state.scenario, "my-arena");

    // The short form, and the game's own scenarios through the base mod.
    r = await run(f, ["-m", "base/freeplay"]);
    assert.equal(r.status.code, 0, r.text);
    assert.equal(
      (await readSave(join(f.dir, "saves", "base", "freeplay.zip"))).state.scenario,
      "base/freeplay",
    );

    writeFileSync(
      join(f.dir, "mods", "arena-mod_1.0.0.zip"),
      await buildModZip(
        { name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" },
        { "scenarios/arena/control.lua": "-- arena\n" },
      ),
    );
    r = await run(f, ["--scenario2map", "arena-mod/arena", "--mod-directory", join(f.dir, "mods")]);
    assert.equal(r.status.code, 0, r.text);
    const { state } = await readSave(join(f.dir, "saves", "arena-mod", "arena.zip"));
    assert.equal(state.scenario, "arena-mod/arena");
  }),
);

Deno.test(
  "--scenario2map: unknown scenarios, bare names of the game's scenarios and disabled mods fail, writing nothing",
  withFactorio("2.0", async (f) => {
    const before = readdirSync(join(f.dir, "saves"));
    for (const name of ["moon", "freeplay", "arena-mod/arena", "base/moon"]) {
      const r = await run(f, ["--scenario2map", name]);
      assert.notEqual(r.status.code, 0, name);
      assert.match(r.text, new RegExp(`Error .*Scenario ${name} not found`), name);
    }
    // A mod's scenario needs the mod enabled.
    writeFileSync(
      join(f.dir, "mods", "arena-mod_1.0.0.zip"),
      await buildModZip(
        { name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" },
        { "scenarios/arena/control.lua": "-- arena\n" },
      ),
    );
    writeFileSync(
      join(f.dir, "mods", "mod-list.json"),
      JSON.stringify({ mods: [{ name: "base", enabled: true }, { name: "arena-mod", enabled: false }] }),
    );
    const r = await run(f, ["--scenario2map", "arena-mod/arena"]);
    assert.notEqual(r.status.code, 0);
    assert.deepEqual(readdirSync(join(f.dir, "saves")), before);
    assert.equal(existsSync(join(f.dir, "saves", "arena-mod")), false);
  }),
);
