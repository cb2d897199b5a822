// The world generator over HTTP on the simulated game: the generator's data from the game's data dump,
// previews rendered by the game (and cached), creating a world whose save holds the chosen settings, map
// exchange strings, and the 423 while the server runs.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MOD_FIXTURES, withModPanel } from "../../tests/support/modpanel.ts";
import { readSave } from "../../tests/fake-factorio/savefile.ts";
import type { GeneratorInfo } from "../../shared/world.ts";

const png = async (m: { panel: { url: string }; c: { cookie?: string; origin: string } }, body: unknown) => {
  const res = await fetch(m.panel.url + "/api/world/preview", {
    method: "POST",
    headers: { Cookie: m.c.cookie!, Origin: m.c.origin, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
};

Deno.test(
  "generator data: the game's examples, presets and planets from its data dump",
  withModPanel(async (m) => {
    const r = await m.c.get("/api/world/generator");
    assert.equal(r.status, 200, r.text);
    const info: GeneratorInfo = r.body;
    assert.equal(info.source, "game");
    assert.deepEqual(info.planets.map((p) => p.name), ["nauvis", "vulcanus", "gleba", "fulgora", "aquilo"]);
    assert.ok(info.planets[1].controls.includes("tungsten_ore"));
    assert.deepEqual(info.presets.map((p) => p.name), [
      "default",
      "rich-resources",
      "marathon",
      "death-world",
      "death-world-marathon",
      "rail-world",
      "ribbon-world",
      "island",
    ]);
    assert.ok("iron-ore" in (info.map_gen_settings.autoplace_controls as object));
    assert.equal(
      Object.keys(info.map_gen_settings).some((k) => k.startsWith("_")),
      false,
      "comments left out",
    );
  }, { version: "2.0" }),
);

Deno.test(
  "generator data on 1.1: one planet, no planet choice",
  withModPanel(async (m) => {
    const info: GeneratorInfo = (await m.c.get("/api/world/generator")).body;
    assert.deepEqual(info.planets.map((p) => p.name), ["nauvis"]);
    assert.ok("terrain_segmentation" in info.map_gen_settings);
  }, { version: "1.1" }),
);

Deno.test(
  "preview: a PNG from the game, cached by settings; another resource setting is another picture",
  withModPanel(async (m) => {
    const settings = {
      map_gen_settings: {
        seed: 7,
        autoplace_controls: { "iron-ore": { frequency: 1, size: 1, richness: 1 } },
      },
      map_settings: {},
    };
    const a = await png(m, { settings, planet: "nauvis", size: 128 });
    assert.equal(a.status, 200, new TextDecoder().decode(a.bytes));
    assert.equal(a.type, "image/png");
    assert.deepEqual([...a.bytes.subarray(1, 4)], [80, 78, 71]);
    const cacheDir = join(m.panel.dataDir, "world-previews");
    assert.equal(readdirSync(cacheDir).length, 1);
    const again = await png(m, { settings, planet: "nauvis", size: 128 });
    assert.deepEqual(again.bytes, a.bytes);
    assert.equal(readdirSync(cacheDir).length, 1, "the same settings come from the cache");
    settings.map_gen_settings.autoplace_controls["iron-ore"].size = 3;
    const b = await png(m, { settings, planet: "nauvis", size: 128 });
    assert.notDeepEqual(b.bytes, a.bytes);
    assert.equal(readdirSync(cacheDir).length, 2);

    const bad = await png(m, { settings, planet: "mars" });
    assert.equal(bad.status, 400);
    assert.match(
      new TextDecoder().decode(bad.bytes),
      /planet must be one of this game's planets: nauvis, vulcanus/,
    );
    assert.equal((await png(m, { settings, size: 5000 })).status, 400);
    assert.equal((await png(m, { settings: { map_gen_settings: { seed: -1 } } })).status, 400);
    m.state.value = "running";
    assert.equal((await png(m, { settings })).status, 423);
  }, { version: "2.0" }),
);

Deno.test(
  "create: the save holds the chosen seed, preset values and controls",
  withModPanel(async (m) => {
    const info: GeneratorInfo = (await m.c.get("/api/world/generator")).body;
    const rich = info.presets.find((p) => p.name === "rich-resources")!;
    const gen = {
      ...info.map_gen_settings,
      seed: 4242,
      area_to_generate_at_start: { left_top: { x: 0, y: 0 } },
    } as Record<string, unknown>;
    const controls = gen.autoplace_controls as Record<string, Record<string, number>>;
    controls["iron-ore"] = {
      ...controls["iron-ore"],
      ...(rich.basic_settings.autoplace_controls as Record<string, object>)["iron-ore"],
      frequency: 2,
    };
    const r = await m.c.post("/api/world/create", {
      name: "Big iron",
      settings: {
        map_gen_settings: gen,
        map_settings: { ...info.map_settings, pollution: { enabled: false } },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body, /Save Big iron\.zip created successfully/);
    const { state } = await readSave(join(m.factorioDir, "saves", "Big iron.zip"));
    assert.equal(state.seed, 4242);
    const savedControls =
      (state.map_gen_settings!.autoplace_controls as Record<string, Record<string, number>>)["iron-ore"];
    assert.deepEqual(savedControls, { frequency: 2, size: 1, richness: 2 });
    assert.equal("area_to_generate_at_start" in state.map_gen_settings!, false, "only keys the game reads");
    assert.deepEqual((state.map_settings as Record<string, { enabled: boolean }>).pollution, {
      enabled: false,
    });
    assert.deepEqual(
      readdirSync(join(m.panel.dataDir, "world-settings")),
      [],
      "the settings files are cleaned up",
    );

    assert.equal((await m.c.post("/api/world/create", { name: "Big iron", settings: {} })).status, 409);
    assert.equal((await m.c.post("/api/world/create", { name: "_autosave9", settings: {} })).status, 400);
    m.state.value = "running";
    assert.equal((await m.c.post("/api/world/create", { name: "x", settings: {} })).status, 423);
  }, { version: "1.1" }),
);

Deno.test(
  "exchange strings over HTTP: decode, encode back, the form's settings as a string, clear 400s",
  withModPanel(async (m) => {
    const text = readFileSync(join(MOD_FIXTURES, "exchange-strings", "2.0.76.txt"), "utf8");
    const d = await m.c.post("/api/world/exchange-string/decode", { string: text });
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.version, "2.0.76.0");
    assert.equal(d.body.map_gen_settings.seed, 932326217);
    const e = await m.c.post("/api/world/exchange-string/encode", d.body);
    assert.equal(e.status, 200, e.text);
    assert.deepEqual(e.body, { string: text.replace(/\s+/g, "") });

    const info: GeneratorInfo = (await m.c.get("/api/world/generator")).body;
    const fromForm = await m.c.post("/api/world/exchange-string/encode", {
      map_gen_settings: { ...info.map_gen_settings, seed: 99 },
      map_settings: info.map_settings,
    });
    assert.equal(fromForm.status, 200, fromForm.text);
    const back = await m.c.post("/api/world/exchange-string/decode", { string: fromForm.body.string });
    assert.equal(back.body.version, "2.0.72.0", "the installed game's version");
    assert.equal(back.body.map_gen_settings.seed, 99);

    for (
      const [body, msg] of [
        [{ string: "" }, /Paste a map exchange string/],
        [{ string: ">>>abc<<<" }, /Not a usable map exchange string: the string is damaged/],
        [
          { string: readFileSync(join(MOD_FIXTURES, "exchange-strings", "1.0.0.txt"), "utf8") },
          /from Factorio 1\.0\.0/,
        ],
      ] as const
    ) {
      const r = await m.c.post("/api/world/exchange-string/decode", body);
      assert.equal(r.status, 400);
      assert.match(r.body, msg);
    }
    const r = await m.c.post("/api/world/exchange-string/encode", {
      map_gen_settings: { seed: "x" },
      map_settings: {},
    });
    assert.equal(r.status, 400);
    assert.match(r.body, /map_gen_settings\.seed must be a whole number/);
  }, { version: "2.0" }),
);
