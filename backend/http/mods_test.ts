// Installed mods and mod packs over HTTP, on a simulated Factorio directory with the real mod zips of
// tests/fixtures/mods. The portal side (login, install, updates) is in portal_test.ts.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MOD_FIXTURES, withModPanel } from "../../tests/support/modpanel.ts";
import { buildModZip } from "../../tests/fake-portal/catalog.ts";
import { ZipReader } from "../lib/zip.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import type { Mod, ModPack } from "../../shared/api.ts";

const byName = (mods: Mod[], name: string) => mods.find((m) => m.name === name);

function uploadForm(file: string | Uint8Array, filename: string, field = "mod_file"): FormData {
  const bytes = typeof file === "string" ? readFileSync(join(MOD_FIXTURES, "mods", file)) : file;
  const form = new FormData();
  form.append(field, new Blob([bytes as BlobPart]), filename);
  return form;
}

/** Files in a directory other than the panel's hidden temp files, and whether any temp file is left. */
function visible(dir: string): string[] {
  return readdirSync(dir).filter((f) => !f.startsWith(".")).sort();
}
function noTempFiles(dir: string): void {
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith(".")), [], `temp files left in ${dir}`);
}

Deno.test(
  "mods list: the game's built-ins, the zips with their compatibility, one row per mod",
  withModPanel(async (m) => {
    let r = await m.c.get("/api/mods/list");
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.map((x: Mod) => [x.name, x.built_in, x.enabled]),
      [["base", true, true]],
      "1.1 ships only base",
    );

    m.addFixture("belt-balancer_2.1.3.zip");
    m.addFixture("belt-balancer_3.0.0.zip");
    r = await m.c.get("/api/mods/list");
    const bb = byName(r.body, "belt-balancer")!;
    assert.equal(r.body.length, 2, "two versions of one mod are one row");
    assert.deepEqual(
      { ...bb, dependencies: undefined },
      {
        name: "belt-balancer",
        title: "Belt Balancer",
        author: "knoxfighter",
        version: "3.0.0",
        file_name: "belt-balancer_3.0.0.zip",
        factorio_version: "1.1.0.0",
        dependencies: undefined,
        compatibility: true,
        enabled: true,
        built_in: false,
        error: null,
        other_versions: ["2.1.3"],
        pinned: false,
      },
    );
    assert.deepEqual(bb.dependencies, ["base >= 1.1.0", "(?) boblogistics >= 1.1.0"]);
  }),
);

Deno.test(
  "mods list: a version pinned in mod-list.json is the one shown",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_2.1.3.zip");
    m.addFixture("belt-balancer_3.0.0.zip");
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({ mods: [{ name: "belt-balancer", enabled: true, version: "2.1.3" }] }),
    );
    const bb = byName((await m.c.get("/api/mods/list")).body, "belt-balancer")!;
    assert.equal(bb.version, "2.1.3");
    assert.equal(bb.compatibility, false, "0.18 mod on 1.1");
    assert.deepEqual(bb.other_versions, ["3.0.0"]);
  }),
);

Deno.test(
  "compatibility: a 0.18 mod is compatible with game 1.0.0, not with 1.1",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_2.1.3.zip");
    const bb = byName((await m.c.get("/api/mods/list")).body, "belt-balancer")!;
    assert.equal(bb.factorio_version, "0.18.0.0");
    assert.equal(bb.compatibility, true);
  }, { baseVersion: "1.0.0" }),
);

Deno.test(
  "2.0 lists its built-in expansion mods with their mod-list.json state",
  withModPanel(async (m) => {
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({ mods: [{ name: "base", enabled: true }, { name: "space-age", enabled: false }] }),
    );
    const mods: Mod[] = (await m.c.get("/api/mods/list")).body;
    assert.deepEqual(mods.map((x) => [x.name, x.built_in, x.enabled]), [
      ["base", true, true],
      ["elevated-rails", true, true],
      ["quality", true, true],
      ["space-age", true, false],
    ]);
    m.addFixture("belt-balancer_3.0.0.zip");
    assert.equal(
      byName((await m.c.get("/api/mods/list")).body, "belt-balancer")!.compatibility,
      false,
      "a 1.1 mod on 2.0",
    );
  }, { version: "2.0" }),
);

Deno.test(
  "broken zips are listed as broken, never crash, and can be deleted by file name",
  withModPanel(async (m) => {
    m.addFixture("invalid_mod.zip");
    writeFileSync(join(m.modsDir, "garbage.zip"), "this is not a zip at all");
    writeFileSync(join(m.modsDir, "badjson_1.0.0.zip"), await buildZipWithInfo("{ not json"));
    writeFileSync(
      join(m.modsDir, "noname_1.0.0.zip"),
      await buildZipWithInfo(JSON.stringify({ version: "1.0.0" })),
    );
    writeFileSync(
      join(m.modsDir, "oddversion.zip"),
      await buildZipWithInfo(JSON.stringify({ name: "odd", version: "1.0.0/../../x" })),
    );
    m.addFixture("belt-balancer_3.0.0.zip");
    const r = await m.c.get("/api/mods/list");
    assert.equal(r.status, 200);
    const broken = r.body.filter((x: Mod) => x.error !== null);
    assert.deepEqual(broken.map((x: Mod) => x.name).sort(), [
      "badjson_1.0.0.zip",
      "garbage.zip",
      "invalid_mod.zip",
      "noname_1.0.0.zip",
      "oddversion.zip",
    ]);
    assert.match(byName(r.body, "oddversion.zip")!.error!, /"version"/);
    assert.match(byName(r.body, "invalid_mod.zip")!.error!, /no info.json/);
    assert.match(byName(r.body, "garbage.zip")!.error!, /not a valid zip/);
    assert.match(byName(r.body, "badjson_1.0.0.zip")!.error!, /not valid JSON/);
    assert.match(byName(r.body, "noname_1.0.0.zip")!.error!, /"name"/);
    assert.ok(byName(r.body, "belt-balancer")!.error === null, "good mods still list");
    // A broken zip cannot be toggled, but can be deleted.
    assert.equal((await m.c.post("/api/mods/toggle", { name: "garbage.zip" })).status, 404);
    assert.equal((await m.c.post("/api/mods/delete", { name: "garbage.zip" })).status, 200);
    assert.ok(!existsSync(join(m.modsDir, "garbage.zip")));
  }),
);

async function buildZipWithInfo(infoText: string): Promise<Uint8Array> {
  const { zipStream } = await import("../lib/zip.ts");
  return new Uint8Array(
    await new Response(zipStream([{ name: "x_1.0.0/info.json", data: new TextEncoder().encode(infoText) }]))
      .arrayBuffer(),
  );
}

Deno.test(
  "info.json is found one folder deep (as the game packs mods) and at the top of a zip",
  withModPanel(async (m) => {
    const top = new Uint8Array(
      await new Response((await import("../lib/zip.ts")).zipStream([{
        name: "info.json",
        data: new TextEncoder().encode(
          JSON.stringify({ name: "flat-mod", version: "0.1.0", factorio_version: "1.1" }),
        ),
      }])).arrayBuffer(),
    );
    writeFileSync(join(m.modsDir, "flat-mod_0.1.0.zip"), top);
    const mods: Mod[] = (await m.c.get("/api/mods/list")).body;
    const flat = byName(mods, "flat-mod")!;
    assert.equal(flat.version, "0.1.0");
    assert.equal(flat.title, "flat-mod", "title defaults to the name");
    assert.deepEqual(flat.dependencies, ["base"], "dependencies default to base");
    assert.equal(flat.compatibility, true);
  }),
);

Deno.test(
  "toggle flips enabled and keeps every other key of mod-list.json",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    const original = {
      mods: [
        { name: "base", enabled: true },
        { name: "belt-balancer", enabled: true, version: "3.0.0", note: "kept" },
        { name: "some-removed-mod", enabled: false },
      ],
      future_key: { a: 1 },
    };
    writeFileSync(join(m.modsDir, "mod-list.json"), JSON.stringify(original));
    let r = await m.c.post("/api/mods/toggle", { name: "belt-balancer" });
    assert.deepEqual([r.status, r.body], [200, false]);
    const after = m.modList();
    assert.deepEqual(after, {
      ...original,
      mods: [original.mods[0], { ...original.mods[1], enabled: false }, original.mods[2]],
    });
    r = await m.c.post("/api/mods/toggle", { name: "belt-balancer" });
    assert.equal(r.body, true);
    // Built-ins toggle too.
    r = await m.c.post("/api/mods/toggle", { name: "base" });
    assert.deepEqual([r.status, r.body], [200, false]);
    assert.equal(m.modList().mods.find((x) => x.name === "base")!.enabled, false);
  }),
);

Deno.test(
  "toggle without a mod-list.json writes one with the game's built-ins",
  withModPanel(async (m) => {
    const r = await m.c.post("/api/mods/toggle", { name: "space-age" });
    assert.deepEqual([r.status, r.body], [200, false]);
    assert.deepEqual(m.modList().mods, [
      { name: "base", enabled: true },
      { name: "elevated-rails", enabled: true },
      { name: "quality", enabled: true },
      { name: "space-age", enabled: false },
    ]);
  }, { version: "2.0" }),
);

Deno.test(
  "toggle and delete: bad input gets a 4xx and changes nothing",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    for (const path of ["/api/mods/toggle", "/api/mods/delete"]) {
      assert.equal((await m.c.post(path, { name: "not-installed" })).status, 404, path);
      assert.equal(
        (await m.c.post(path, { name: "not-installed" })).body,
        "Could not find mod not-installed",
      );
      assert.equal((await m.c.post(path, {})).status, 400, path);
      assert.equal(
        (await m.c.request("POST", path, { body: "{", headers: { "Content-Type": "application/json" } }))
          .status,
        400,
      );
      assert.equal(
        (await m.c.request("POST", path, { body: "name=x", headers: { "Content-Type": "text/plain" } }))
          .status,
        415,
      );
    }
    assert.ok(!existsSync(join(m.modsDir, "mod-list.json")), "nothing was written");
    const builtIn = await m.c.post("/api/mods/delete", { name: "base" });
    assert.equal(builtIn.status, 400);
    assert.match(builtIn.body, /ships with the game/);
    // A damaged mod-list.json is not written over.
    writeFileSync(join(m.modsDir, "mod-list.json"), "{ damaged");
    const damaged = await m.c.post("/api/mods/toggle", { name: "belt-balancer" });
    assert.equal(damaged.status, 409);
    assert.match(damaged.body, /mod-list.json is damaged/);
    assert.equal(readFileSync(join(m.modsDir, "mod-list.json"), "utf8"), "{ damaged");
    assert.equal((await m.c.get("/api/mods/list")).status, 200, "listing still works");
  }),
);

Deno.test(
  "delete removes every version of the mod and its mod-list.json entry",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_2.1.3.zip");
    m.addFixture("belt-balancer_3.0.0.zip");
    assert.equal((await m.c.post("/api/mods/toggle", { name: "belt-balancer" })).body, false);
    const r = await m.c.post("/api/mods/delete", { name: "belt-balancer" });
    assert.deepEqual([r.status, r.body], [200, "belt-balancer"]);
    assert.deepEqual(visible(m.modsDir), ["mod-list.json"]);
    assert.deepEqual(m.modList().mods.map((x) => x.name), ["base"]);
  }),
);

Deno.test(
  "delete all keeps mod-settings.dat unless asked, and the built-ins' entries",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    m.addFixture("invalid_mod.zip");
    const settings = readFileSync(join(MOD_FIXTURES, "mod-settings.dat"));
    writeFileSync(join(m.modsDir, "mod-settings.dat"), settings);
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({
        mods: [{ name: "space-age", enabled: false }, { name: "belt-balancer", enabled: true }],
        x: 1,
      }),
    );
    let r = await m.c.request("POST", "/api/mods/delete/all");
    assert.deepEqual([r.status, r.body], [200, null]);
    assert.deepEqual(visible(m.modsDir), ["mod-list.json", "mod-settings.dat"]);
    assert.deepEqual(m.modList(), { mods: [{ name: "space-age", enabled: false }], x: 1 });
    m.addFixture("belt-balancer_3.0.0.zip");
    r = await m.c.post("/api/mods/delete/all", { delete_mod_settings: true });
    assert.equal(r.status, 200);
    assert.deepEqual(visible(m.modsDir), ["mod-list.json"]);
  }, { version: "2.0" }),
);

Deno.test(
  "upload: streams, checks info.json, names the file {name}_{version}.zip, replaces other versions",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_2.1.3.zip");
    assert.equal((await m.c.post("/api/mods/toggle", { name: "belt-balancer" })).body, false);
    const r = await m.c.request("POST", "/api/mods/upload", {
      body: uploadForm("belt-balancer_3.0.0.zip", "Some Name (1).ZIP"),
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.mods.map((x: Mod) => [x.name, x.version, x.enabled]), [
      ["base", "1.1.110", true],
      ["belt-balancer", "3.0.0", false],
    ]);
    assert.deepEqual(
      visible(m.modsDir),
      ["belt-balancer_3.0.0.zip", "mod-list.json"],
      "the old version is gone, the file renamed",
    );
    noTempFiles(m.modsDir);
  }),
);

Deno.test(
  "upload: what is not a mod is refused and leaves nothing behind",
  withModPanel(async (m) => {
    const cases: [FormData, number, RegExp | string][] = [
      [uploadForm("invalid_mod.zip", "invalid_mod.zip"), 400, /not a Factorio mod: the zip has no info.json/],
      [
        uploadForm(new TextEncoder().encode("hello"), "notes.zip"),
        400,
        /not a Factorio mod: not a valid zip/,
      ],
      [uploadForm("belt-balancer_3.0.0.zip", "belt-balancer.txt"), 415, PANEL_MSG.modFileNotZip],
      [uploadForm("belt-balancer_3.0.0.zip", "x.zip", "other_field"), 400, PANEL_MSG.modFileRequired],
      [
        uploadForm(await buildModZip({ name: "base", version: "9.9.9" }), "base.zip"),
        400,
        /ships with the game/,
      ],
    ];
    for (const [form, status, message] of cases) {
      const r = await m.c.request("POST", "/api/mods/upload", { body: form });
      assert.equal(r.status, status, r.text);
      if (typeof message === "string") assert.equal(r.body, message);
      else assert.match(r.body, message);
    }
    assert.equal((await m.c.request("POST", "/api/mods/upload", { json: {} })).status, 415);
    assert.deepEqual(readdirSync(m.modsDir), [], "no file, no temp file, no mod-list.json");
  }),
);

Deno.test(
  "download all mods: a streamed zip of the mods folder, named before it starts",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    writeFileSync(join(m.modsDir, "mod-settings.dat"), readFileSync(join(MOD_FIXTURES, "mod-settings.dat")));
    await m.c.post("/api/mods/toggle", { name: "belt-balancer" });
    const res = await fetch(m.panel.url + "/api/mods/download", { headers: { Cookie: m.c.cookie! } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.match(res.headers.get("content-disposition")!, /attachment; filename="all_installed_mods.zip"/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const file = join(m.panel.dataDir, "download.zip");
    writeFileSync(file, bytes);
    const zip = await ZipReader.open(file);
    try {
      assert.deepEqual(zip.entries.map((e) => e.name), [
        "belt-balancer_3.0.0.zip",
        "mod-list.json",
        "mod-settings.dat",
      ]);
      const inner = await zip.read(zip.find("belt-balancer_3.0.0.zip")!, 10_000_000);
      assert.deepEqual(
        inner,
        new Uint8Array(readFileSync(join(MOD_FIXTURES, "mods", "belt-balancer_3.0.0.zip"))),
      );
    } finally {
      await zip.close();
    }
  }),
);

Deno.test(
  "the route table holds every Mods and Mod packs call of the spec",
  withModPanel(async (m) => {
    const table = m.panel.routes.map((r) => `${r.method} ${r.path}`);
    const spec = [
      "GET /api/mods/list",
      "POST /api/mods/toggle",
      "POST /api/mods/delete",
      "POST /api/mods/update",
      "POST /api/mods/upload",
      "POST /api/mods/delete/all",
      "GET /api/mods/download",
      "POST /api/mods/portal/login",
      "GET /api/mods/portal/loginstatus",
      "GET /api/mods/portal/logout",
      "POST /api/mods/portal/install/multiple",
      "POST /api/mods/portal/install",
      "GET /api/mods/portal/list",
      "GET /api/mods/portal/info/:name",
      "GET /api/mods/packs/list",
      "POST /api/mods/packs/create",
      "POST /api/mods/packs/:pack/delete",
      "GET /api/mods/packs/:pack/download",
      "POST /api/mods/packs/:pack/load",
      "GET /api/mods/packs/:pack/list",
      "POST /api/mods/packs/:pack/mod/toggle",
      "POST /api/mods/packs/:pack/mod/update",
      "POST /api/mods/packs/:pack/mod/delete",
      // The old panel's router has these too (fsm-behaviour.md 2): scripts written against it call them.
      "POST /api/mods/packs/:pack/mod/delete/all",
      "POST /api/mods/packs/:pack/mod/upload",
      "POST /api/mods/packs/:pack/portal/install",
      "POST /api/mods/packs/:pack/portal/install/multiple",
    ];
    for (const route of spec) assert.ok(table.includes(route), route);
    assert.ok(
      m.panel.routes.find((r) => r.path === "/api/mods/portal/logout")!.changesState,
      "logout changes state",
    );
  }),
);

const GATED = [
  "POST /api/mods/toggle",
  "POST /api/mods/delete",
  "POST /api/mods/delete/all",
  "POST /api/mods/update",
  "POST /api/mods/upload",
  "POST /api/mods/portal/install",
  "POST /api/mods/portal/install/multiple",
  "POST /api/mods/packs/:pack/load",
];

Deno.test(
  "every mod change answers 423 unless the server is stopped, and changes nothing",
  withModPanel(async (m) => {
    // mod settings have their own 423 test (modsettings_test.ts)
    const gated = m.panel.routes.filter((r) =>
      r.requiresStopped && r.path.startsWith("/api/mods") && !r.path.startsWith("/api/mods/settings")
    ).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(gated.sort(), [...GATED].sort());
    m.addFixture("belt-balancer_3.0.0.zip");
    await m.c.post("/api/mods/packs/create", { name: "pack" });
    await m.portalLogin();
    const before = readdirSync(m.modsDir).sort();
    const bodies: Record<string, unknown> = {
      "/api/mods/toggle": { name: "belt-balancer" },
      "/api/mods/delete": { name: "belt-balancer" },
      "/api/mods/update": {
        modName: "belt-balancer",
        downloadUrl: "/download/belt-balancer/5fc1aca2bfe1b005c6943bf1",
        fileName: "x",
      },
      "/api/mods/portal/install": {
        modName: "belt-balancer",
        downloadUrl: "/download/belt-balancer/5fc1aca2bfe1b005c6943bf1",
        fileName: "x",
      },
      "/api/mods/portal/install/multiple": [{ name: "belt-balancer", version: "2.1.3" }],
    };
    for (const state of ["running", "starting", "stopping"] as const) {
      m.state.value = state;
      for (const route of GATED) {
        const [method, pattern] = route.split(" ");
        const path = pattern.replace(":pack", "pack");
        const r = path === "/api/mods/upload"
          ? await m.c.request("POST", path, { body: uploadForm("belt-balancer_2.1.3.zip", "b.zip") })
          : await m.c.request(method, path, { json: bodies[path] ?? {} });
        assert.equal(r.status, 423, `${route} while ${state}`);
        assert.equal(r.body, PANEL_MSG.serverNotStopped);
      }
    }
    assert.deepEqual(readdirSync(m.modsDir).sort(), before);
    assert.equal(m.fake.hits("/download").length, 0);
    // Reading is fine while the game runs.
    assert.equal((await m.c.get("/api/mods/list")).status, 200);
    m.state.value = "stopped";
    assert.equal((await m.c.post("/api/mods/toggle", { name: "belt-balancer" })).status, 200);
  }),
);

Deno.test(
  "mod packs: create from the installed mods, list, toggle and delete inside, download, load, delete",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    writeFileSync(join(m.modsDir, "mod-settings.dat"), readFileSync(join(MOD_FIXTURES, "mod-settings.dat")));
    assert.deepEqual((await m.c.get("/api/mods/packs/list")).body, []);

    let r = await m.c.post("/api/mods/packs/create", { name: "Weekend Run" });
    assert.equal(r.status, 200, r.text);
    const packs: ModPack[] = r.body;
    assert.deepEqual(packs.map((p) => [p.name, p.mods.mods.map((x) => x.name)]), [["Weekend Run", [
      "base",
      "belt-balancer",
    ]]]);
    const packDir = join(m.panel.dataDir, "mod-packs", "Weekend Run");
    assert.deepEqual(visible(packDir), ["belt-balancer_3.0.0.zip", "mod-settings.dat"]);

    // Changes inside the pack stay inside the pack.
    r = await m.c.post("/api/mods/packs/Weekend%20Run/mod/toggle", { name: "belt-balancer" });
    assert.deepEqual([r.status, r.body], [200, false]);
    assert.equal(
      byName((await m.c.get("/api/mods/packs/Weekend%20Run/list")).body.mods, "belt-balancer")!.enabled,
      false,
    );
    assert.equal(byName((await m.c.get("/api/mods/list")).body, "belt-balancer")!.enabled, true);

    // The download is a zip named after the pack.
    const res = await fetch(m.panel.url + "/api/mods/packs/Weekend%20Run/download", {
      headers: { Cookie: m.c.cookie! },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-disposition")!, /filename="Weekend Run.zip"/);
    const zipFile = join(m.panel.dataDir, "pack.zip");
    writeFileSync(zipFile, new Uint8Array(await res.arrayBuffer()));
    const zip = await ZipReader.open(zipFile);
    assert.deepEqual(zip.entries.map((e) => e.name), [
      "belt-balancer_3.0.0.zip",
      "mod-list.json",
      "mod-settings.dat",
    ]);
    await zip.close();

    // Loading replaces the installed mods; mods not in the pack go.
    m.addFixture("invalid_mod.zip");
    await m.c.post("/api/mods/delete", { name: "belt-balancer" });
    r = await m.c.post("/api/mods/packs/Weekend%20Run/load");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.mods.map((x: Mod) => [x.name, x.enabled]), [["base", true], [
      "belt-balancer",
      false,
    ]]);
    assert.deepEqual(visible(m.modsDir), ["belt-balancer_3.0.0.zip", "mod-list.json", "mod-settings.dat"]);
    noTempFiles(m.factorioDir);

    // Deleting a mod inside the pack, then the pack.
    r = await m.c.post("/api/mods/packs/Weekend%20Run/mod/delete", { name: "belt-balancer" });
    assert.deepEqual([r.status, r.body], [200, true]);
    assert.deepEqual(
      (await m.c.get("/api/mods/packs/Weekend%20Run/list")).body.mods.map((x: Mod) => x.name),
      ["base"],
    );
    r = await m.c.post("/api/mods/packs/Weekend%20Run/delete");
    assert.deepEqual([r.status, r.body], [200, "Weekend Run"]);
    assert.ok(!existsSync(packDir));
    assert.deepEqual((await m.c.get("/api/mods/packs/list")).body, []);
  }),
);

Deno.test(
  "mod packs: loading keeps the installed mod-settings.dat when the pack has none",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    await m.c.post("/api/mods/packs/create", { name: "plain" });
    writeFileSync(join(m.modsDir, "mod-settings.dat"), "settings");
    assert.equal((await m.c.post("/api/mods/packs/plain/load")).status, 200);
    assert.equal(readFileSync(join(m.modsDir, "mod-settings.dat"), "utf8"), "settings");
  }),
);

Deno.test(
  "mod packs: names are checked like save names; unknown packs are 404; duplicates 409",
  withModPanel(async (m) => {
    for (const bad of ["../escape", "a/b", ".hidden", "x\u0000", "a..b"]) {
      const r = await m.c.post("/api/mods/packs/create", { name: bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
    }
    for (const empty of [{}, { name: "" }, { name: "   " }]) {
      const r = await m.c.post("/api/mods/packs/create", empty);
      assert.deepEqual([r.status, r.body], [400, MSG.modPackNameRequired]);
    }
    assert.ok(!existsSync(join(m.panel.dataDir, "mod-packs", "..", "escape")));
    assert.equal((await m.c.post("/api/mods/packs/create", { name: "one" })).status, 200);
    const dup = await m.c.post("/api/mods/packs/create", { name: "one" });
    assert.equal(dup.status, 409);
    assert.match(dup.body, /already exists/);
    for (
      const [method, path, body] of [
        ["POST", "/api/mods/packs/nope/delete", {}],
        ["GET", "/api/mods/packs/nope/download", undefined],
        ["POST", "/api/mods/packs/nope/load", {}],
        ["GET", "/api/mods/packs/nope/list", undefined],
        ["GET", "/api/mods/packs/nope/updates", undefined],
        ["POST", "/api/mods/packs/nope/mod/toggle", { name: "x" }],
        ["POST", "/api/mods/packs/nope/mod/delete", { name: "x" }],
        ["POST", "/api/mods/packs/nope/mod/update", {
          modName: "x",
          downloadUrl: "/download/x/1",
          fileName: "x",
        }],
        ["POST", "/api/mods/packs/nope/mod/delete/all", undefined],
        ["POST", "/api/mods/packs/nope/portal/install", {
          modName: "x",
          downloadUrl: "/download/x/1",
          fileName: "x",
        }],
        ["POST", "/api/mods/packs/nope/portal/install/multiple", [{ name: "x", version: "1.0.0" }]],
      ] as const
    ) {
      const r = await m.c.request(method, path, { json: body });
      assert.equal(r.status, 404, path);
      assert.equal(r.body, "There is no mod pack named nope.");
    }
    const traversal = await m.c.post("/api/mods/packs/..%2F..%2Fetc/load");
    assert.ok(traversal.status === 400 || traversal.status === 404, String(traversal.status));
    assert.ok(statSync(join(m.panel.dataDir, "mod-packs", "one")).isDirectory());
  }),
);

Deno.test(
  "unpacked mod folders are listed, copied into packs, zipped and deleted like zips",
  withModPanel(async (m) => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(m.modsDir, "dev-mod_0.1.0", "locale", "en"), { recursive: true });
    writeFileSync(
      join(m.modsDir, "dev-mod_0.1.0", "info.json"),
      JSON.stringify({ name: "dev-mod", version: "0.1.0", factorio_version: "1.1" }),
    );
    writeFileSync(
      join(m.modsDir, "dev-mod_0.1.0", "locale", "en", "strings.cfg"),
      "[mod-name]\ndev-mod=Dev\n",
    );
    mkdirSync(join(m.modsDir, "not-a-mod")); // no info.json: not listed, not copied
    const dev = byName((await m.c.get("/api/mods/list")).body, "dev-mod")!;
    assert.deepEqual([dev.version, dev.file_name, dev.compatibility], ["0.1.0", "dev-mod_0.1.0", true]);
    assert.equal((await m.c.post("/api/mods/packs/create", { name: "dev" })).status, 200);
    assert.equal(
      readFileSync(
        join(m.panel.dataDir, "mod-packs", "dev", "dev-mod_0.1.0", "locale", "en", "strings.cfg"),
        "utf8",
      ),
      "[mod-name]\ndev-mod=Dev\n",
    );
    assert.ok(!existsSync(join(m.panel.dataDir, "mod-packs", "dev", "not-a-mod")));
    const res = await fetch(m.panel.url + "/api/mods/download", { headers: { Cookie: m.c.cookie! } });
    const file = join(m.panel.dataDir, "all.zip");
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    const zip = await ZipReader.open(file);
    assert.deepEqual(zip.entries.map((e) => e.name), [
      "dev-mod_0.1.0/info.json",
      "dev-mod_0.1.0/locale/en/strings.cfg",
    ]);
    await zip.close();
    assert.equal((await m.c.post("/api/mods/delete", { name: "dev-mod" })).status, 200);
    assert.ok(!existsSync(join(m.modsDir, "dev-mod_0.1.0")));
    assert.ok(existsSync(join(m.modsDir, "not-a-mod")), "folders that are not mods are left alone");
  }),
);

Deno.test(
  "a POST without a body counts as one without fields, whatever its Content-Type says",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_3.0.0.zip");
    const bare = (path: string, headers: Record<string, string> = {}) =>
      m.c.request("POST", path, { headers });
    const json = { "Content-Type": "application/json" };
    // The old UI and scripts send "Content-Type: application/json" on every request, a body or not.
    let r = await bare("/api/mods/delete/all", json);
    assert.deepEqual([r.status, r.body], [200, null]);
    assert.deepEqual(visible(m.modsDir), ["mod-list.json"]);
    r = await bare("/api/mods/delete/all");
    assert.deepEqual([r.status, r.body], [200, null], "no Content-Type either");
    r = await bare("/api/mods/delete/all", {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": "0",
    });
    assert.deepEqual([r.status, r.body], [200, null]);
    // A route that needs fields says which one is missing, not that the JSON is broken.
    r = await bare("/api/mods/toggle", json);
    assert.deepEqual([r.status, r.body], [400, "name is required"]);
    r = await bare("/api/mods/portal/install/multiple", json);
    assert.equal(r.status, 400);
    assert.match(r.body, /list of mods of a save/);
    // The same body reading serves every area: "Back up now" takes only optional fields.
    r = await bare("/api/backups", json);
    assert.notEqual(r.body, PANEL_MSG.jsonInvalid, `${r.status} ${r.text}`);
    assert.ok(r.status < 500, `${r.status} ${r.text}`);
    // What is there must still be JSON, and of the JSON type.
    r = await m.c.request("POST", "/api/mods/delete/all", { body: "{", headers: json });
    assert.deepEqual([r.status, r.body], [400, PANEL_MSG.jsonInvalid]);
    r = await m.c.request("POST", "/api/mods/delete/all", {
      body: "",
      headers: { "Content-Type": "text/plain" },
    });
    assert.deepEqual(
      [r.status, r.body],
      [415, PANEL_MSG.jsonExpected],
      "an empty body of another type is still refused",
    );
  }),
);

Deno.test(
  "mod packs: delete all and upload inside a pack, as the old API has them; the installed mods stay",
  withModPanel(async (m) => {
    m.addFixture("belt-balancer_2.1.3.zip");
    writeFileSync(join(m.modsDir, "mod-settings.dat"), readFileSync(join(MOD_FIXTURES, "mod-settings.dat")));
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({
        mods: [{ name: "space-age", enabled: false }, { name: "belt-balancer", enabled: true }],
      }),
    );
    assert.equal((await m.c.post("/api/mods/packs/create", { name: "pack" })).status, 200);
    const packDir = join(m.panel.dataDir, "mod-packs", "pack");
    const installedBefore = visible(m.modsDir);

    // Upload: the multipart field mod_file, as for the installed mods; the answer is the pack's mods.
    let r = await m.c.request("POST", "/api/mods/packs/pack/mod/upload", {
      body: uploadForm("belt-balancer_3.0.0.zip", "bb.zip"),
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(byName(r.body.mods, "belt-balancer")!.version, "3.0.0");
    assert.deepEqual(visible(packDir), ["belt-balancer_3.0.0.zip", "mod-list.json", "mod-settings.dat"]);
    r = await m.c.request("POST", "/api/mods/packs/pack/mod/upload", {
      body: uploadForm("invalid_mod.zip", "invalid_mod.zip"),
    });
    assert.equal(r.status, 400, r.text);
    r = await m.c.request("POST", "/api/mods/packs/pack/mod/upload", {
      body: uploadForm("belt-balancer_2.1.3.zip", "bb.txt"),
    });
    assert.deepEqual([r.status, r.body], [415, PANEL_MSG.modFileNotZip]);
    // The old panel crashed on an unknown pack; here it is the same 404 as the other pack routes.
    r = await m.c.request("POST", "/api/mods/packs/nope/mod/upload", {
      body: uploadForm("belt-balancer_3.0.0.zip", "bb.zip"),
    });
    assert.deepEqual([r.status, r.body], [404, "There is no mod pack named nope."]);
    assert.ok(!existsSync(join(m.panel.dataDir, "mod-packs", "nope")));
    noTempFiles(packDir);

    // Pack changes touch only the pack: they go on while the game runs.
    m.state.value = "running";
    // Delete all: the old UI's body-less POST; the built-ins' entries and mod-settings.dat stay, as for the
    // installed mods. The old API answered true.
    r = await m.c.request("POST", "/api/mods/packs/pack/mod/delete/all", {
      headers: { "Content-Type": "application/json" },
    });
    assert.deepEqual([r.status, r.body], [200, true]);
    assert.deepEqual(visible(packDir), ["mod-list.json", "mod-settings.dat"]);
    assert.deepEqual(JSON.parse(readFileSync(join(packDir, "mod-list.json"), "utf8")).mods, [{
      name: "space-age",
      enabled: false,
    }]);
    r = await m.c.post("/api/mods/packs/pack/mod/delete/all", { delete_mod_settings: true });
    assert.deepEqual([r.status, r.body], [200, true]);
    assert.deepEqual(visible(packDir), ["mod-list.json"]);
    assert.deepEqual(visible(m.modsDir), installedBefore, "the installed mods are untouched");
  }, { version: "2.0" }),
);
