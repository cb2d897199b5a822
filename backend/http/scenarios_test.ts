// Scenarios: listed from the user's folder, the game's built-in mods and enabled mod zips; a server
// started on one runs a new map from it (--start-server-load-scenario), and a restart loads the newest save.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freeUdpPort, waitForStatus, withGamePanel } from "../testing/game.ts";
import { buildModZip } from "../../tests/fake-portal/catalog.ts";
import { readSave } from "../../tests/fake-factorio/savefile.ts";
import type { Scenario } from "../../shared/world.ts";
import type { ServerStatus } from "../../shared/api.ts";

Deno.test("scenarios: listed from the game, the user and enabled mods; start on one; a restart loads the latest save", withGamePanel(async (p) => {
  const c = await p.login();
  mkdirSync(join(p.factorio.dir, "scenarios", "my-arena"), { recursive: true });
  writeFileSync(
    join(p.factorio.dir, "mods", "arena-mod_1.0.0.zip"),
    await buildModZip({ name: "arena-mod", version: "1.0.0", title: "Arena mod", factorio_version: "2.0" }, { "scenarios/arena/control.lua": "-- arena\n" }),
  );
  const list: Scenario[] = (await c.get("/api/world/scenarios")).body;
  assert.deepEqual(list.map((s) => s.name), ["my-arena", "freeplay", "pvp", "wave-defense", "arena-mod/arena"]);
  assert.equal(list.find((s) => s.name === "arena-mod/arena")?.source, "Arena mod");

  const bad = await c.post("/api/world/scenarios/start", { name: "moon", bindip: "127.0.0.1", port: 34197 });
  assert.equal(bad.status, 400);
  assert.match(bad.body, /name must be one of the scenarios: my-arena, freeplay/);
  assert.equal((await c.post("/api/world/scenarios/start", { name: "freeplay", bindip: "300.0.0.1", port: 34197 })).status, 400);

  const port = await freeUdpPort();
  const r = await c.post("/api/world/scenarios/start", { name: "freeplay", bindip: "127.0.0.1", port });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body, `Server started on the scenario freeplay, port ${port}.`);
  const running: ServerStatus = (await c.get("/api/server/status")).body;
  assert.equal(running.status, "running");
  assert.equal((await c.post("/api/world/scenarios/start", { name: "freeplay", bindip: "127.0.0.1", port })).status, 423);

  const restart = await c.post("/api/server/restart", {});
  assert.equal(restart.status, 200, restart.text);
  const { state } = await readSave(join(p.factorio.dir, "saves", "freeplay.zip"));
  assert.equal(state.scenario, "freeplay", "the map the scenario started, saved on the way down");
  assert.equal((p.ctx.game.status() as ServerStatus).status, "running");
  assert.equal((p.ctx.game.status() as ServerStatus).savefile, "freeplay.zip", "the restart loaded the newest save: the scenario's map");
  await c.get("/api/server/stop");
  await waitForStatus(p.ctx, "stopped");
}, { saves: [] }));
