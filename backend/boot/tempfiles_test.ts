// A panel killed mid-upload, mid-download or mid-pack-copy leaves hidden files; the next start removes
// them, and only them.

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
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPanel } from "../../tests/support/harness.ts";
import { tempPathFor } from "../lib/fsutil.ts";

Deno.test("start-up removes stale upload, download, atomic-write and staging leftovers, and nothing else", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-stale-"));
  const factorio = join(dataDir, "factorio");
  const saves = join(factorio, "saves");
  const mods = join(factorio, "mods");
  const config = join(factorio, "config");
  const pack = join(dataDir, "mod-packs", "friends");
  for (const d of [saves, mods, config, pack]) mkdirSync(d, { recursive: true });
  const stale = [
    tempPathFor(join(saves, "upload")), // an upload cut by kill -9
    tempPathFor(join(mods, "upload")),
    join(mods, ".download.0123456789ab.tmp"), // a portal download
    join(pack, ".download.ba9876543210.tmp"),
    tempPathFor(join(config, "server-settings.json")), // an atomic write
    tempPathFor(join(dataDir, "players.json")),
  ];
  for (const f of stale) writeFileSync(f, "partial");
  const staging = join(dataDir, "mod-packs", ".friends2.new-00112233aabb");
  mkdirSync(staging);
  writeFileSync(join(staging, "x_1.0.0.zip"), "zip");
  const keep = [
    join(saves, "world.zip"),
    join(saves, ".notes.tmp"),
    join(mods, "mod-list.json"),
    join(saves, "a.tmp.zip"),
  ];
  for (const f of keep) writeFileSync(f, "{}");
  const p = await startPanel({ dataDir, args: ["--factorio-dir", factorio] });
  try {
    for (const f of stale) assert.ok(!existsSync(f), `${f} was left`);
    assert.ok(!existsSync(staging));
    for (const f of keep) assert.ok(existsSync(f), `${f} was removed`);
    assert.ok(existsSync(pack));
  } finally {
    await p.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

Deno.test("a pack load killed between its renames gets the mods folder back", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-stale-"));
  const factorio = join(dataDir, "factorio");
  const aside = join(factorio, ".mods.old-a1b2c3d4e5f6");
  const stage = join(factorio, ".mods.load-a1b2c3d4e5f6");
  mkdirSync(aside, { recursive: true });
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(aside, "mod-list.json"), '{"mods":[]}');
  const p = await startPanel({ dataDir, args: ["--factorio-dir", factorio] });
  try {
    assert.deepEqual(readdirSync(join(factorio, "mods")), ["mod-list.json"]);
    assert.ok(!existsSync(aside) && !existsSync(stage));
  } finally {
    await p.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

Deno.test("start-up puts back a save a killed scenario conversion had kept aside, over what the game left", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-aside-"));
  const factorio = join(dataDir, "factorio");
  const saves = join(factorio, "saves");
  const modFolder = join(saves, "my-mod");
  mkdirSync(modFolder, { recursive: true });
  // The user's own saves, kept aside; the game had begun writing its map at their places.
  writeFileSync(join(saves, ".scenario2map-aside.0123456789ab.island.zip"), "the user's island");
  writeFileSync(join(saves, "island.zip"), "half a map");
  writeFileSync(join(modFolder, ".scenario2map-aside.ba9876543210.arena.zip"), "the earlier arena");
  const p = await startPanel({ dataDir, args: ["--factorio-dir", factorio] });
  try {
    assert.equal(readFileSync(join(saves, "island.zip"), "utf8"), "the user's island");
    assert.equal(readFileSync(join(modFolder, "arena.zip"), "utf8"), "the earlier arena");
    assert.deepEqual(readdirSync(saves).filter((n) => n.startsWith(".")), []);
    assert.deepEqual(readdirSync(modFolder), ["arena.zip"]);
  } finally {
    await p.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
