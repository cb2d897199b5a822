// Mod settings and mod pinning over HTTP, on a simulated Factorio directory with real mod-settings.dat
// files (1.1 and 2.0) and a mod whose settings.lua defines settings of every kind.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MOD_FIXTURES, withModPanel } from "../../tests/support/modpanel.ts";
import { buildModZip } from "../../tests/fake-portal/catalog.ts";
import { decodeModSettings } from "../factorio/modsettings/propertytree.ts";
import { VERSIONS } from "../../tests/fake-factorio/install.ts";
import { testModZip } from "../../tests/support/testmod.ts";
import type { ModSettingDefinitions, ModSettingsState } from "../../shared/modsettings.ts";
import type { Mod, ModUpdate } from "../../shared/api.ts";

const fixture = (f: string) => new Uint8Array(readFileSync(join(MOD_FIXTURES, f)));
const V11 = "mod-settings/factorio-1.1.110.mod-settings.dat";
const V20 = "mod-settings/factorio-2.0.55.mod-settings.dat";

function form(bytes: Uint8Array, field = "file"): FormData {
  const f = new FormData();
  f.append(field, new Blob([bytes as BlobPart]), "mod-settings.dat");
  return f;
}
const upload = (bytes: Uint8Array, field = "file") => ({ body: form(bytes, field) });
const hidden = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("."));

/** The stored node of one setting's value. */
function stored(path: string, section: string, name: string) {
  const root = decodeModSettings(readFileSync(path)).tree;
  if (root.type !== "dict") throw new Error("root");
  const s = root.entries.find((e) => e.key === section)!.value;
  if (s.type !== "dict") throw new Error("section");
  const setting = s.entries.find((e) => e.key === name)?.value;
  if (!setting || setting.type !== "dict") return undefined;
  return setting.entries.find((e) => e.key === "value")!.value;
}

Deno.test(
  "mod settings: without a file, the game's version and empty sections; an update starts the file",
  withModPanel(async (m) => {
    let r = await m.c.get("/api/mods/settings");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      version: `${VERSIONS["2.0"].version}.0`,
      settings: { "startup": {}, "runtime-global": {}, "runtime-per-user": {} },
      previous: null,
    });
    assert.equal((await m.c.get("/api/mods/settings/download")).status, 404);

    writeFileSync(join(m.modsDir, "test-settings-mod_1.0.0.zip"), await testModZip());
    r = await m.c.post("/api/mods/settings/update", {
      settings: { "runtime-global": { "tm-count": { value: 7 } } },
    });
    assert.equal(r.status, 200, r.text);
    const path = join(m.modsDir, "mod-settings.dat");
    assert.deepEqual(decodeModSettings(readFileSync(path)).version.join("."), `${VERSIONS["2.0"].version}.0`);
    assert.deepEqual(
      stored(path, "runtime-global", "tm-count"),
      { type: "int", any: false, value: 7n },
      "2.0 writes an int-setting as a 64-bit integer",
    );
  }, { version: "2.0" }),
);

Deno.test(
  "mod settings: a real 2.0 file reads, sending it back unchanged keeps every byte, a change keeps the stored type",
  withModPanel(async (m) => {
    const path = join(m.modsDir, "mod-settings.dat");
    const original = fixture(V20);
    writeFileSync(path, original);
    const state: ModSettingsState = (await m.c.get("/api/mods/settings")).body;
    assert.equal(state.version, "2.0.55.0");
    assert.equal(Object.keys(state.settings.startup).length, 840);
    assert.equal(state.settings["runtime-global"]["cerys-dynamic-lighting"].value, true);

    let r = await m.c.post("/api/mods/settings/update", { settings: state.settings });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      new Uint8Array(readFileSync(path)),
      original,
      "an unchanged file is written back byte-identical",
    );

    // an int stays an int, a double a double, a string a string
    const intName = Object.entries(state.settings.startup).find(([n]) =>
      stored(path, "startup", n)?.type === "int"
    )![0];
    const dblName =
      Object.entries(state.settings.startup).find(([n]) => stored(path, "startup", n)?.type === "double")![0];
    r = await m.c.post("/api/mods/settings/update", {
      settings: {
        startup: {
          [intName]: { value: 12345 },
          [dblName]: { value: 0.25 },
          "ab-small-armoured-biter-health": { value: "150%" },
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.settings.startup[intName].value, 12345);
    assert.deepEqual(stored(path, "startup", intName), { type: "int", any: false, value: 12345n });
    assert.deepEqual(stored(path, "startup", dblName), { type: "double", any: false, value: 0.25 });
    assert.deepEqual(stored(path, "startup", "ab-small-armoured-biter-health"), {
      type: "string",
      any: false,
      value: "150%",
    });
    assert.equal(
      Object.keys((await m.c.get("/api/mods/settings")).body.settings.startup).length,
      840,
      "nothing else lost",
    );

    // a whole number for an int, text for a string
    for (const [value, msg] of [[1.5, /must be a whole number/], ["x", /must be a whole number/]] as const) {
      r = await m.c.post("/api/mods/settings/update", { settings: { startup: { [intName]: { value } } } });
      assert.equal(r.status, 400);
      assert.match(r.body, msg);
    }
    r = await m.c.post("/api/mods/settings/update", {
      settings: { startup: { "ab-small-armoured-biter-health": { value: 3 } } },
    });
    assert.equal(r.status, 400);
    assert.match(r.body, /ab-small-armoured-biter-health \(startup\) must be text/);
    assert.deepEqual(
      stored(path, "startup", intName),
      { type: "int", any: false, value: 12345n },
      "a refused update changes nothing",
    );
  }, { version: "2.0" }),
);

Deno.test(
  "mod settings: a 1.1 file keeps integers as doubles; null removes a setting",
  withModPanel(async (m) => {
    const path = join(m.modsDir, "mod-settings.dat");
    writeFileSync(path, fixture(V11));
    writeFileSync(join(m.modsDir, "test-settings-mod_1.0.0.zip"), await testModZip());
    const r = await m.c.post("/api/mods/settings/update", {
      settings: { "runtime-global": { "tm-count": { value: 9 } }, "startup": { "bet-cheatsy-speed": null } },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(stored(path, "runtime-global", "tm-count"), { type: "double", any: false, value: 9 });
    assert.equal(stored(path, "startup", "bet-cheatsy-speed"), undefined);
    assert.equal(r.body.settings.startup["bet-cheatsy-speed"], undefined);
    assert.equal(r.body.version, "1.1.110.0");
  }, { version: "1.1" }),
);

Deno.test(
  "mod settings: definitions from settings.lua check new values; unknown settings and sections are refused",
  withModPanel(async (m) => {
    writeFileSync(join(m.modsDir, "test-settings-mod_1.0.0.zip"), await testModZip());
    const defs: ModSettingDefinitions = (await m.c.get("/api/mods/settings/definitions")).body;
    assert.deepEqual(defs.problems, []);
    assert.deepEqual(defs.definitions.map((d) => [d.mod, d.name, d.type, d.setting_type]), [
      ["test-settings-mod", "tm-enabled", "bool", "startup"],
      ["test-settings-mod", "tm-count", "int", "runtime-global"],
      ["test-settings-mod", "tm-ratio", "double", "runtime-global"],
      ["test-settings-mod", "tm-mode", "string", "runtime-per-user"],
      ["test-settings-mod", "tm-colour", "color", "runtime-per-user"],
      ["test-settings-mod", "tm-computed-default", "int", "startup"],
      ["test-settings-mod", "tm-text", "string", "startup"],
    ]);
    assert.equal(defs.definitions[1].title, "How many");
    assert.equal(defs.definitions[1].description, "Between 1 and 100");

    const bad: [Record<string, unknown>, RegExp][] = [
      [
        { "runtime-global": { "tm-count": { value: 101 } } },
        /tm-count \(runtime-global\) must be at most 100/,
      ],
      [{ "runtime-per-user": { "tm-mode": { value: "medium" } } }, /must be one of fast, slow/],
      [
        { "startup": { "tm-count": { value: 5 } } },
        /tm-count \(startup\): no installed mod defines this setting/,
      ],
      [{ "startup": { "no-such-setting": { value: true } } }, /no installed mod defines/],
      [{ "global": { "tm-count": { value: 5 } } }, /Unknown section "global"/],
      [{ "startup": { "tm-enabled": true } }, /give the setting as \{"value": \.\.\.\}/],
      [{ "runtime-per-user": { "tm-colour": { value: { r: "red" } } } }, /must be a colour/],
    ];
    for (const [settings, msg] of bad) {
      const r = await m.c.post("/api/mods/settings/update", { settings });
      assert.equal(r.status, 400, JSON.stringify(settings));
      assert.match(r.body, msg);
    }
    assert.equal((await m.c.post("/api/mods/settings/update", [])).status, 400);
    assert.equal(existsSync(join(m.modsDir, "mod-settings.dat")), false, "nothing was written");

    const r = await m.c.post("/api/mods/settings/update", {
      settings: {
        "startup": { "tm-enabled": { value: false } },
        "runtime-per-user": {
          "tm-colour": { value: { r: 0.1, g: 0.2, b: 0.3, a: 1 } },
          "tm-mode": { value: "slow" },
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.settings["runtime-per-user"]["tm-colour"].value, {
      r: 0.1,
      g: 0.2,
      b: 0.3,
      a: 1,
    });
    const path = join(m.modsDir, "mod-settings.dat");
    assert.deepEqual(stored(path, "startup", "tm-enabled"), { type: "bool", any: false, value: false });
  }, { version: "2.0" }),
);

Deno.test(
  "mod settings: upload replaces the file after checking it, download streams it, 423 while the game runs",
  withModPanel(async (m) => {
    const path = join(m.modsDir, "mod-settings.dat");
    writeFileSync(path, fixture(V11));
    let r = await m.c.request("POST", "/api/mods/settings/upload", upload(fixture(V20)));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.version, "2.0.55.0");
    assert.deepEqual(new Uint8Array(readFileSync(path)), fixture(V20));

    const damaged = fixture(V11).subarray(0, 5000);
    r = await m.c.request("POST", "/api/mods/settings/upload", upload(damaged));
    assert.equal(r.status, 400);
    assert.match(r.body, /not a readable mod-settings.dat: the file ends in the middle/);
    assert.equal(
      (await m.c.request("POST", "/api/mods/settings/upload", upload(fixture(V11), "other"))).status,
      400,
    );
    assert.deepEqual(new Uint8Array(readFileSync(path)), fixture(V20), "a refused upload changes nothing");
    assert.deepEqual(hidden(m.modsDir), [], "no temp files left");

    const dl = await fetch(m.panel.url + "/api/mods/settings/download", { headers: { Cookie: m.c.cookie! } });
    assert.equal(dl.status, 200);
    assert.match(dl.headers.get("content-disposition") ?? "", /mod-settings\.dat/);
    assert.deepEqual(new Uint8Array(await dl.arrayBuffer()), fixture(V20));

    m.state.value = "running";
    r = await m.c.post("/api/mods/settings/update", { settings: {} });
    assert.equal(r.status, 423);
    assert.equal((await m.c.request("POST", "/api/mods/settings/upload", upload(fixture(V11)))).status, 423);
    assert.equal((await m.c.get("/api/mods/settings")).status, 200, "reading is fine while the game runs");
    assert.deepEqual(new Uint8Array(readFileSync(path)), fixture(V20));
  }, { version: "2.0" }),
);

Deno.test(
  "mod settings: a 0.16 file (no header byte) uploads, reads and is written back in its own format",
  withModPanel(async (m) => {
    const v16 = fixture("mod-settings/factorio-0.16.51.mod-settings.dat");
    let r = await m.c.request("POST", "/api/mods/settings/upload", upload(v16));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.version, "0.16.51.0");
    assert.equal(r.body.settings.startup["AR-use-items-from-bioindustries"].value, true);
    const path = join(m.modsDir, "mod-settings.dat");
    r = await m.c.post("/api/mods/settings/update", {
      settings: { startup: { "AR-use-items-from-bioindustries": { value: false } } },
    });
    assert.equal(r.status, 200, r.text);
    const written = new Uint8Array(readFileSync(path));
    assert.equal(written.length, v16.length, "the same size: no byte was added after the version");
    assert.deepEqual(decodeModSettings(written).version, [0, 16, 51, 0]);
    assert.deepEqual(stored(path, "startup", "AR-use-items-from-bioindustries"), {
      type: "bool",
      any: false,
      value: false,
    });
  }, { version: "1.1" }),
);

Deno.test(
  "mod settings: an upload keeps the file it replaces, and restoring it swaps the two back",
  withModPanel(async (m) => {
    const path = join(m.modsDir, "mod-settings.dat");
    let r = await m.c.get("/api/mods/settings");
    assert.equal(r.body.previous, null, "nothing replaced yet");
    r = await m.c.post("/api/mods/settings/restore-previous", {});
    assert.equal(r.status, 404);
    assert.equal(
      r.body,
      "There is no earlier mod-settings.dat to restore: it is kept when an upload replaces the file.",
    );

    writeFileSync(path, fixture(V11));
    r = await m.c.request("POST", "/api/mods/settings/upload", upload(fixture(V20)));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.previous.version, "1.1.110.0");
    assert.ok(Date.now() - Date.parse(r.body.previous.replaced) < 60_000, r.body.previous.replaced);
    assert.deepEqual(new Uint8Array(readFileSync(path)), fixture(V20));
    assert.equal((await m.c.get("/api/mods/settings")).body.previous.version, "1.1.110.0");

    m.state.value = "running";
    assert.equal((await m.c.post("/api/mods/settings/restore-previous", {})).status, 423);
    m.state.value = "stopped";
    r = await m.c.post("/api/mods/settings/restore-previous", {});
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.version, "1.1.110.0");
    assert.equal(r.body.previous.version, "2.0.55.0", "the file it replaced is kept in turn");
    assert.deepEqual(new Uint8Array(readFileSync(path)), fixture(V11));
    r = await m.c.post("/api/mods/settings/restore-previous", {});
    assert.deepEqual(new Uint8Array(readFileSync(path)), fixture(V20), "and back again");
    assert.deepEqual(hidden(m.modsDir), [], "no temp files left");
  }, { version: "2.0" }),
);

Deno.test(
  "mod settings: a damaged file on disk is a clear 409, not a crash",
  withModPanel(async (m) => {
    writeFileSync(
      join(m.modsDir, "mod-settings.dat"),
      new Uint8Array([1, 0, 1, 0, 0, 0, 0, 0, 0, 5, 0, 255, 255, 255, 255]),
    );
    const r = await m.c.get("/api/mods/settings");
    assert.equal(r.status, 409);
    assert.match(
      r.body,
      /mod-settings.dat cannot be read \(a dictionary at byte 9 claims 4294967295 entries/,
    );
  }, { version: "1.1" }),
);

Deno.test(
  "pin: a pinned mod has no update, is refused by update, and unpinning brings the update back",
  withModPanel(async (m) => {
    for (const [name, version] of [["fp-library", "1.0.0"], ["fp-signals", "1.0.0"]]) {
      writeFileSync(
        join(m.modsDir, `${name}_${version}.zip`),
        await buildModZip({ name, version, factorio_version: "2.1" }),
      );
    }
    const names = async () =>
      ((await m.c.get("/api/mods/updates")).body as ModUpdate[]).map((u) => u.modName);
    assert.deepEqual(await names(), ["fp-library", "fp-signals"]);

    let r = await m.c.post("/api/mods/pin", { name: "fp-library", pinned: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.pinned, true);
    const list: Mod[] = (await m.c.get("/api/mods/list")).body;
    assert.deepEqual(list.filter((x) => !x.built_in).map((x) => [x.name, x.pinned]), [["fp-library", true], [
      "fp-signals",
      false,
    ]]);
    assert.deepEqual(await names(), ["fp-signals"], "no update badge and nothing for Update all");
    assert.deepEqual(JSON.parse(readFileSync(join(m.panel.dataDir, "mod-pins.json"), "utf8")), {
      mods: { "fp-library": "1.0.0" },
    });
    const modList = join(m.modsDir, "mod-list.json");
    assert.ok(
      !existsSync(modList) || !readFileSync(modList, "utf8").includes('"version"'),
      "mod-list.json is the game's: no version pinned there",
    );

    await m.portalLogin();
    r = await m.c.post("/api/mods/update", { modName: "fp-library", downloadUrl: "/download/fp-library/x" });
    assert.equal(r.status, 409);
    assert.match(r.body, /fp-library is pinned at 1.0.0; unpin it to update it/);

    for (
      const [body, status] of [[{ name: "base", pinned: true }, 400], [{ name: "fp-library" }, 400], [{
        name: "nope",
        pinned: true,
      }, 404]] as const
    ) {
      assert.equal((await m.c.post("/api/mods/pin", body)).status, status, JSON.stringify(body));
    }
    r = await m.c.post("/api/mods/pin", { name: "fp-library", pinned: false });
    assert.equal(r.body.pinned, false);
    assert.deepEqual(await names(), ["fp-library", "fp-signals"]);
  }, { version: "2.1" }),
);
