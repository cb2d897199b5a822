// Update (& restart) through the API: a stopped server is installed and switched; a running one warns the
// players over RCON, saves, stops, switches and starts the same save; a new version that cannot host
// the save is rolled back to the old one, which runs again. The game is the simulator, installed from
// the fake factorio.com.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  installOutcome,
  updateOutcome,
  type VersionsPanel,
  withVersionsPanel,
} from "../../tests/support/versions.ts";
import { freeUdpPort, waitForStatus } from "../../tests/support/game.ts";
import type { Client } from "../../tests/support/harness.ts";
import type { UpdateProgress, VersionsAnswer } from "../../shared/factorio-versions.ts";
import type { Schedule } from "../../shared/backups.ts";
import { until } from "../../tests/support/until.ts";
import { TestSocket } from "../../tests/support/ws.ts";

/** 2.0.76 installed and active, a save "world.zip" made by it. */
async function withOldGame(v: VersionsPanel): Promise<Client> {
  const c = await v.panel.login();
  const outcome = installOutcome(v.panel.ctx.bus);
  assert.equal((await c.post("/api/factorio/install", { version: "2.0.76" })).status, 202);
  assert.equal((await outcome).phase, "done");
  const created = await c.get("/api/saves/create/world");
  assert.equal(created.status, 200, created.text);
  return c;
}

/** Starts world.zip; `online` players join it (the warnings before a restart are for them). */
async function startWorld(c: Client, v?: VersionsPanel, online = "alice"): Promise<void> {
  const r = await c.post("/api/server/start", {
    bindip: "127.0.0.1",
    port: await freeUdpPort(),
    savefile: "world.zip",
  });
  assert.equal(r.status, 200, r.text);
  if (v && online) await v.panel.ctx.game.rcon(`/fake-join ${online}`);
}

Deno.test(
  "update while stopped: installs the newest stable and switches to it",
  withVersionsPanel(async (v) => {
    const c = await withOldGame(v);
    assert.equal((await c.post("/api/factorio/check")).body.latest, "2.0.77");
    const outcome = updateOutcome(v.panel.ctx.bus);
    const r = await c.post("/api/factorio/update", {});
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body, "Updating from Factorio 2.0.76 to 2.0.77.");
    const out = await outcome;
    assert.equal(out.phase, "done", out.message);
    assert.equal((await c.get("/api/server/facVersion")).body.base_mod_version, "2.0.77");
    assert.equal((await c.get("/api/server/status")).body.status, "stopped");
    assert.equal((await c.get("/api/factorio/versions")).body.updateAvailable, null);
    // Nothing newer: refused.
    const again = await c.post("/api/factorio/update", {});
    assert.equal(again.status, 409);
  }),
);

Deno.test(
  "update & restart: players are warned, the same save runs again on the new version",
  withVersionsPanel(async (v) => {
    const c = await withOldGame(v);
    await startWorld(c, v);
    const seen: UpdateProgress[] = [];
    const outcome = updateOutcome(v.panel.ctx.bus, seen);
    const r = await c.post("/api/factorio/update", { version: "2.0.77" });
    assert.equal(r.status, 202, r.text);
    const out = await outcome;
    assert.equal(out.phase, "done", JSON.stringify(seen));
    assert.deepEqual([...new Set(seen.map((s) => s.phase))], [
      "installing",
      "warning",
      "stopping",
      "starting",
      "done",
    ]);
    assert.deepEqual(seen.filter((s) => s.phase === "warning").map((s) => s.secondsLeft), [2, 1]);
    const status = (await c.get("/api/server/status")).body;
    assert.equal(status.status, "running");
    assert.equal(status.savefile, "world.zip");
    assert.equal(status.fac_version, "2.0.77.0");
    const consoleLog = readFileSync(join(v.factorioDir, "factorio-console.log"), "utf8");
    assert.match(
      consoleLog,
      /\[CHAT\] <server>: \[Server\] The server restarts in 2 seconds to update to Factorio 2\.0\.77/,
    );
    assert.match(consoleLog, /\[CHAT\] <server>: \[Server\] The server restarts in 1 seconds/);
    const copies = readdirSync(join(v.panel.dataDir, "save-copies"));
    assert.ok(copies.some((n) => /2\.0\.76-to-2\.0\.77_world\.zip$/.test(n)), copies.join());
    // A second update while one runs, or changes while the game runs, are refused.
    assert.equal((await c.post("/api/factorio/activate", { version: "2.0.76" })).status, 423);
  }),
);

Deno.test(
  "update & restart: a new version that cannot start is rolled back and the old one runs the save",
  withVersionsPanel(async (v) => {
    v.fake.setMode("2.0.77", "crash");
    const c = await withOldGame(v);
    await startWorld(c);
    const seen: UpdateProgress[] = [];
    const outcome = updateOutcome(v.panel.ctx.bus, seen);
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 202);
    const out = await outcome;
    assert.equal(out.phase, "rolled-back", JSON.stringify(seen));
    assert.match(
      out.message,
      /Factorio 2\.0\.77 did not start .*switched back to Factorio 2\.0\.76 and started world\.zip again/,
    );
    assert.ok(seen.some((s) => s.phase === "rolling-back"));
    await waitForStatus(v.panel.ctx, "running");
    const status = (await c.get("/api/server/status")).body;
    assert.equal(status.savefile, "world.zip");
    assert.equal(status.fac_version, "2.0.76.0");
    const list = (await c.get("/api/factorio/versions")).body;
    assert.deepEqual(
      list.installed.map((i: { version: string; active: boolean }) => `${i.version}${i.active ? "*" : ""}`),
      ["2.0.77", "2.0.76*"],
    );
    assert.equal(list.update.phase, "rolled-back");
    assert.ok(existsSync(join(v.factorioDir, "saves", "world.zip")));
  }),
);

Deno.test(
  "update & restart: a download that fails leaves the running game alone",
  withVersionsPanel(async (v) => {
    v.fake.setMode("2.0.77", "wrong-checksum");
    const c = await withOldGame(v);
    await startWorld(c);
    const running = (await c.get("/api/server/status")).body;
    const seen: UpdateProgress[] = [];
    const outcome = updateOutcome(v.panel.ctx.bus, seen);
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 202);
    const out = await outcome;
    assert.equal(out.phase, "failed");
    assert.match(out.message, /does not match factorio\.com's checksum/);
    assert.ok(
      !seen.some((s) => s.phase === "warning" || s.phase === "stopping"),
      "nobody was warned, nothing stopped",
    );
    const after = (await c.get("/api/server/status")).body;
    assert.equal(after.status, "running");
    assert.equal(after.since, running.since, "the game was not restarted");
    assert.equal(after.fac_version, "2.0.76.0");
  }),
);

Deno.test(
  "update & restart can be called off during the countdown; the game keeps running",
  withVersionsPanel(async (v) => {
    const c = await withOldGame(v);
    await startWorld(c, v);
    const since = (await c.get("/api/server/status")).body.since;
    const seen: UpdateProgress[] = [];
    const outcome = updateOutcome(v.panel.ctx.bus, seen);
    const warned = new Promise<void>((r) => {
      const off = v.panel.ctx.bus.on(
        "factorio.versions",
        (m) => m.kind === "update" && m.update.phase === "warning" && (off(), r()),
      );
    });
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 202);
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 409);
    await warned;
    const r = await c.post("/api/factorio/update/cancel");
    assert.equal(r.status, 200, r.text);
    const out = await outcome;
    assert.equal(out.phase, "cancelled", JSON.stringify(seen));
    assert.ok(
      !seen.some((s) => s.phase === "stopping"),
    );
    const status = (await c.get("/api/server/status")).body;
    assert.equal(status.status, "running");
    assert.equal(status.since, since);
    assert.equal(status.fac_version, "2.0.76.0");
    await v.panel.ctx.game.rcon("/players"); // the call-off line is written before the answer comes back
    assert.match(
      readFileSync(join(v.factorioDir, "factorio-console.log"), "utf8"),
      /\[CHAT\] <server>: \[Server\] The update was called off/,
    );
    assert.equal((await c.post("/api/factorio/update/cancel")).status, 409);
  }),
);

Deno.test(
  "update & restart with nobody online restarts at once, without warnings",
  withVersionsPanel(async (v) => {
    const c = await withOldGame(v);
    await startWorld(c);
    const seen: UpdateProgress[] = [];
    const outcome = updateOutcome(v.panel.ctx.bus, seen);
    const next = new Promise<UpdateProgress>((resolve) => {
      const off = v.panel.ctx.bus.on("factorio.versions", (m) => {
        if (m.kind === "update" && m.update.phase !== "installing") (off(), resolve(m.update));
      });
    });
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 202);
    // Right after the install: the stop (a 5-minute countdown would warn nobody).
    assert.equal((await next).phase, "stopping", JSON.stringify(seen));
    assert.equal((await outcome).phase, "done", JSON.stringify(seen));
    const consoleLog = join(v.factorioDir, "factorio-console.log");
    assert.doesNotMatch(
      existsSync(consoleLog) ? readFileSync(consoleLog, "utf8") : "",
      /The server restarts in/,
    );
    assert.equal((await c.get("/api/server/status")).body.fac_version, "2.0.77.0");
  }, { args: ["--update-warnings", "300,60,10"] }),
);

Deno.test(
  "the countdown's seconds left are counted from the stop's time, in the answer and the replay",
  withVersionsPanel(async (v) => {
    const c = await withOldGame(v);
    await startWorld(c, v);
    const warned = new Promise<void>((r) => {
      const off = v.panel.ctx.bus.on(
        "factorio.versions",
        (m) => m.kind === "update" && m.update.phase === "warning" && (off(), r()),
      );
    });
    const outcome = updateOutcome(v.panel.ctx.bus);
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 202);
    await warned;
    const first = ((await c.get("/api/factorio/versions")).body as VersionsAnswer).update!;
    assert.equal(first.phase, "warning");
    assert.ok(first.secondsLeft! <= 300 && first.secondsLeft! > 0, String(first.secondsLeft));
    // A later answer counts down from the same stop time (the warning itself was sent only at 300 s).
    const later = await until("a later seconds-left", async () => {
      const u = ((await c.get("/api/factorio/versions")).body as VersionsAnswer).update!;
      return u.secondsLeft! < first.secondsLeft! && u;
    });
    assert.equal(later.phase, "warning");
    assert.match(later.message, /restarts in 300 s/);
    // A page that opens now gets the same count in the room's replay.
    const ws = await TestSocket.connect(c);
    try {
      ws.subscribe("factorio_versions");
      const replayed = await ws.waitForMessage("factorio_versions", (m) => JSON.parse(m).kind === "update");
      const update = (JSON.parse(replayed) as { update: UpdateProgress }).update;
      assert.ok(
        update.secondsLeft! <= later.secondsLeft!,
        `${update.secondsLeft} after ${later.secondsLeft}`,
      );
    } finally {
      await ws.close();
    }
    assert.equal((await c.post("/api/factorio/update/cancel")).status, 200);
    assert.equal((await outcome).phase, "cancelled");
  }, { args: ["--update-warnings", "300"] }),
);

Deno.test(
  "a scheduled restart during an update & restart: one restart, one set of warnings",
  withVersionsPanel(async (v) => {
    const c = await withOldGame(v);
    await startWorld(c, v);
    const starts: string[] = [];
    v.panel.ctx.bus.on(
      "server.status",
      ({ status, previous }) =>
        previous !== status.status && status.status === "starting" && starts.push(status.fac_version),
    );
    const created = await c.post("/api/schedules", {
      name: "Nightly restart",
      cron: "0 4 * * *",
      condition: "always",
      enabled: true,
      tasks: [
        { type: "warn", delay_s: 0, text: "Nightly restart in {time}", countdown_s: 10 },
        { type: "restart", delay_s: 0 },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const outcome = updateOutcome(v.panel.ctx.bus);
    assert.equal((await c.post("/api/factorio/update", { version: "2.0.77" })).status, 202);
    // The schedule fires while the update runs (it is installing the new version).
    assert.equal((await c.post(`/api/schedules/${created.body.id}/run`, {})).status, 202);
    assert.equal((await outcome).phase, "done");
    await v.panel.ctx.schedules.settled(created.body.id);
    const run = ((await c.get(`/api/schedules/${created.body.id}`)).body as Schedule).last_runs[0];
    assert.equal(run.result, "ok", run.output);
    assert.match(run.output, /warn: .*the update to Factorio 2\.0\.77 restarts the server/);
    assert.match(run.output, /restart: .*the update to Factorio 2\.0\.77 restarts the server/);
    // One restart (the update's), and only the update's warnings in the game.
    assert.deepEqual(starts, ["2.0.77.0"]);
    await v.panel.ctx.game.rcon("/players");
    const chat = readFileSync(join(v.factorioDir, "factorio-console.log"), "utf8");
    assert.doesNotMatch(chat, /Nightly restart in/);
    assert.match(chat, /The server restarts in 2 seconds to update to Factorio 2\.0\.77/);
    assert.equal((await c.get("/api/server/status")).body.status, "running");
  }),
);
