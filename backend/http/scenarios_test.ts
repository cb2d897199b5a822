// Scenarios: listed from the user's folder, the game's built-in mods and enabled mod zips; a server
// started on one runs a new map from it (--start-server-load-scenario), and a restart loads the newest save.

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freeUdpPort, waitForStatus, withGamePanel } from "../../tests/support/game.ts";
import { buildModZip } from "../../tests/fake-portal/catalog.ts";
import { readSave } from "../../tests/fake-factorio/savefile.ts";
import type { Scenario } from "../../shared/world.ts";
import type { Save, ServerStatus } from "../../shared/api.ts";

Deno.test(
  "scenarios: listed from the game, the user and enabled mods; start on one; a restart loads the latest save",
  withGamePanel(async (p) => {
    const c = await p.login();
    mkdirSync(join(p.factorio.dir, "scenarios", "my-arena"), { recursive: true });
    writeFileSync(
      join(p.factorio.dir, "mods", "arena-mod_1.0.0.zip"),
      await buildModZip(
        { name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" },
        { "scenarios/arena/control.lua": "-- arena\n" },
      ),
    );
    const list: Scenario[] = (await c.get("/api/world/scenarios")).body;
    assert.deepEqual(list.map((s) => s.name), [
      "my-arena",
      "base/freeplay",
      "base/pvp",
      "base/wave-defense",
      "arena-mod/arena",
    ]);
    assert.equal(list.find((s) => s.name === "arena-mod/arena")?.source, "Arena mod");

    const bad = await c.post("/api/world/scenarios/start", {
      name: "moon",
      bindip: "127.0.0.1",
      port: 34197,
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /name must be one of the scenarios: my-arena, base\/freeplay/);
    assert.equal(
      (await c.post("/api/world/scenarios/start", {
        name: "base/freeplay",
        bindip: "300.0.0.1",
        port: 34197,
      })).status,
      400,
    );

    const port = await freeUdpPort();
    const r = await c.post("/api/world/scenarios/start", {
      name: "base/freeplay",
      bindip: "127.0.0.1",
      port,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body, `Server started on the scenario base/freeplay, port ${port}.`);
    const running: ServerStatus = (await c.get("/api/server/status")).body;
    assert.equal(running.status, "running");
    assert.equal(
      (await c.post("/api/world/scenarios/start", { name: "base/freeplay", bindip: "127.0.0.1", port }))
        .status,
      423,
    );
    const locked = await c.post("/api/world/scenarios/save", {
      name: "my-arena",
      save: "arena while running",
    });
    assert.equal(locked.status, 423, "a scenario becomes a save only while the game is stopped");
    assert.equal(existsSync(join(p.factorio.dir, "saves", "arena while running.zip")), false);

    const restart = await c.post("/api/server/restart", {});
    assert.equal(restart.status, 200, restart.text);
    const { state } = await readSave(join(p.factorio.dir, "saves", "freeplay.zip"));
    assert.equal(state.scenario, "base/freeplay", "the map the scenario started, saved on the way down");
    assert.equal((p.ctx.game.status() as ServerStatus).status, "running");
    assert.equal(
      (p.ctx.game.status() as ServerStatus).savefile,
      "freeplay.zip",
      "the restart loaded the newest save: the scenario's map",
    );
    await c.get("/api/server/stop");
    await waitForStatus(p.ctx, "stopped");
  }, { saves: [] }),
);

Deno.test(
  "scenario to save: the game's --scenario2map, moved to saves/<name>.zip; collisions, unknown names and game failures change nothing",
  withGamePanel(async (p) => {
    const c = await p.login();
    const saves = join(p.factorio.dir, "saves");
    mkdirSync(join(p.factorio.dir, "scenarios", "my-arena"), { recursive: true });
    writeFileSync(join(p.factorio.dir, "scenarios", "my-arena", "control.lua"), "-- arena\n");
    writeFileSync(
      join(p.factorio.dir, "mods", "arena-mod_1.0.0.zip"),
      await buildModZip(
        { name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" },
        { "scenarios/arena/control.lua": "-- arena\n" },
      ),
    );
    const listed = async () => ((await c.get("/api/saves/list")).body as Save[]).map((s) => s.name);

    // A plain scenario, the save name defaulting to the scenario's.
    let r = await c.post("/api/world/scenarios/save", { name: "my-arena" });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body, "Save my-arena.zip created from the scenario my-arena.");
    assert.equal((await readSave(join(saves, "my-arena.zip"))).state.scenario, "my-arena");

    // A mod's scenario: the game writes saves/arena-mod/arena.zip; the panel moves it to the chosen name.
    r = await c.post("/api/world/scenarios/save", { name: "arena-mod/arena", save: "Arena night" });
    assert.equal(r.status, 200, r.text);
    assert.equal((await readSave(join(saves, "Arena night.zip"))).state.scenario, "arena-mod/arena");
    assert.equal(existsSync(join(saves, "arena-mod")), false, "the game's sub-folder is gone");
    assert.deepEqual(await listed(), ["Arena night.zip", "my-arena.zip", "world.zip", "Load Latest"]);

    // The game's own scenario through the base mod.
    r = await c.post("/api/world/scenarios/save", { name: "base/freeplay", save: "fresh" });
    assert.equal(r.status, 200, r.text);
    assert.equal((await readSave(join(saves, "fresh.zip"))).state.scenario, "base/freeplay");
    assert.equal(existsSync(join(saves, "base")), false);

    // A name that is taken: 409 unless asked to replace; the old save is untouched.
    const before = readdirSync(saves).sort();
    r = await c.post("/api/world/scenarios/save", { name: "base/freeplay", save: "world" });
    assert.equal(r.status, 409, r.text);
    assert.match(r.body, /A save named world.zip already exists/);
    assert.equal((await readSave(join(saves, "world.zip"))).state.scenario, undefined);
    r = await c.post("/api/world/scenarios/save", { name: "base/freeplay", save: "world", overwrite: true });
    assert.equal(r.status, 200, r.text);
    assert.equal((await readSave(join(saves, "world.zip"))).state.scenario, "base/freeplay");
    assert.deepEqual(readdirSync(saves).sort(), before);

    // A save named like the plain scenario, replaced by converting that scenario under another name: it is
    // kept aside while the game writes saves/my-arena.zip, and put back.
    r = await c.post("/api/world/scenarios/save", { name: "my-arena", save: "arena copy" });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(readdirSync(saves).sort(), [...before, "arena copy.zip"].sort());

    // Bad requests: 400 with what to change, nothing written.
    for (
      const [body, why] of [
        [{ name: "moon" }, /name must be one of the scenarios: my-arena, base\/freeplay/],
        [{ name: "freeplay" }, /name must be one of the scenarios/],
        [{ name: "my-arena", save: "../evil" }, /Save name must not contain/],
        [{ name: "my-arena", save: "_autosave1" }, /_autosave/],
        [{ name: "my-arena", save: "x", overwrite: "yes" }, /overwrite must be true or false/],
      ] as const
    ) {
      r = await c.post("/api/world/scenarios/save", body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body, why);
    }
    assert.deepEqual(readdirSync(saves).sort(), [...before, "arena copy.zip"].sort());

    // The game itself fails (here: it cannot read mod-settings.dat): 500 (as a failed --create; 502 would read
    // "Service not available" in the app) with its own error line, nothing written.
    writeFileSync(join(p.factorio.dir, "mods", "mod-settings.dat"), "not a property tree");
    r = await c.post("/api/world/scenarios/save", { name: "arena-mod/arena", save: "never" });
    assert.equal(r.status, 500, r.text);
    assert.match(
      r.body,
      /^The game could not make a save from the scenario arena-mod\/arena: Failed to load mods: Failed to load mod settings/,
    );
    assert.deepEqual(readdirSync(saves).sort(), [...before, "arena copy.zip"].sort());
  }),
);

Deno.test(
  "scenario to save: one game run at a time; a --create meanwhile is refused, naming the save being made",
  withGamePanel(async (p) => {
    // A game that takes its time, so the second request surely lands while the first runs.
    renameSync(p.factorio.binary, p.factorio.binary + ".real");
    writeFileSync(p.factorio.binary, `#!/bin/sh\nFAKE_FACTORIO_STARTUP_MS=3000 exec "$0.real" "$@"\n`);
    chmodSync(p.factorio.binary, 0o755);
    const c = await p.login();
    const first = c.post("/api/world/scenarios/save", { name: "base/freeplay", save: "slow" });
    while (p.ctx.saves.creatingNow === null) await new Promise((r) => setTimeout(r, 20));
    const create = await c.get("/api/saves/create/other");
    assert.equal(create.status, 409, create.text);
    assert.match(create.body, /The save slow.zip is being created/);
    const again = await c.post("/api/world/scenarios/save", { name: "base/freeplay", save: "second" });
    assert.equal(again.status, 409, again.text);
    assert.equal((await first).status, 200);
    assert.equal((await readSave(join(p.factorio.dir, "saves", "slow.zip"))).state.scenario, "base/freeplay");
    assert.equal(existsSync(join(p.factorio.dir, "saves", "other.zip")), false);
  }),
);
