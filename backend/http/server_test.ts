// The game server through the API, driving the simulator as a real child process: start, save & stop,
// kill, status transitions, crash detection, a taken port, the 423 guard, the log tail, secrets.

import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createFakeSave,
  holdUdpPort,
  startGame,
  startPanelWithGame,
  statusVersion,
  waitForStatus,
  withGamePanel,
} from "../../tests/support/game.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import type { ServerStatus } from "../../shared/api.ts";
import { LOAD_LATEST } from "../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { classify } from "../factorio/game/run.ts";

Deno.test(
  "status and version before anything runs",
  withGamePanel(async (p) => {
    const c = await p.login();
    const s = (await c.get("/api/server/status")).body as ServerStatus;
    assert.equal(s.status, "stopped");
    assert.equal(s.running, false);
    assert.equal(s.last_exit, null);
    assert.equal(typeof s.since, "string");
    const v = await c.get("/api/server/facVersion");
    assert.deepEqual(v.body, { version: statusVersion("2.0"), base_mod_version: "2.0.72" });
    assert.equal((await c.get("/api/server/status")).body.fac_version, statusVersion("2.0"));
  }),
);

Deno.test(
  "the start request is checked with the spec's messages, and a refused start changes nothing",
  withGamePanel(async (p) => {
    const c = await p.login();
    const ok = { bindip: "127.0.0.1", port: 34197, savefile: "world.zip" };
    const cases: [Record<string, unknown>, number, string | RegExp][] = [
      [{ ...ok, bindip: "" }, 400, MSG.ipInvalid],
      [{ ...ok, bindip: "256.1.1.1" }, 400, MSG.ipInvalid],
      [{ ...ok, bindip: "localhost" }, 400, MSG.ipInvalid],
      [{ ...ok, port: 0 }, 400, MSG.portRequired],
      [{ ...ok, port: "abc" }, 400, MSG.portRequired],
      [{ ...ok, port: 70000 }, 400, PANEL_MSG.portRange],
      [{ ...ok, savefile: "" }, 400, MSG.saveRequired],
      [{ ...ok, savefile: "../../etc/passwd" }, 400, /must not contain/],
      [{ ...ok, savefile: "nope.zip" }, 404, "Save nope.zip does not exist."],
    ];
    for (const [body, status, message] of cases) {
      const r = await c.post("/api/server/start", body);
      assert.equal(r.status, status, JSON.stringify(body));
      if (typeof message === "string") assert.equal(r.body, message);
      else assert.match(r.body, message);
    }
    assert.equal((await c.get("/api/server/status")).body.status, "stopped");
  }),
);

Deno.test(
  "Load Latest without any save is refused with the spec's text",
  withGamePanel(async (p) => {
    const c = await p.login();
    const r = await c.post("/api/server/start", { bindip: "0.0.0.0", port: 34197, savefile: LOAD_LATEST });
    assert.equal(r.status, 400);
    assert.equal(r.body, MSG.saveMustBeCreated);
  }, { saves: [] }),
);

Deno.test(
  "start, status pushes, 423 while running, save & stop",
  withGamePanel(async (p) => {
    const c = await p.login();
    const ws = await TestSocket.connect(c);
    try {
      ws.subscribe("server_status");
      await ws.waitForMessage("server_status", () => true);
      const { port, message } = await startGame(c, { savefile: "world.zip" });
      assert.equal(message, `Factorio server with save: world.zip started on port: ${port}`);
      const running = (await c.get("/api/server/status")).body as ServerStatus;
      assert.equal(running.status, "running");
      assert.equal(running.running, true);
      assert.equal(running.port, port);
      assert.equal(running.bindip, "127.0.0.1");
      assert.equal(running.address, "127.0.0.1");
      assert.equal(running.savefile, "world.zip");

      // Only routes that change the game's files are locked; a second start is one of them.
      const again = await c.post("/api/server/start", { bindip: "127.0.0.1", port, savefile: "world.zip" });
      assert.equal(again.status, 423);
      assert.equal(again.body, PANEL_MSG.serverNotStopped);

      const saved = statSync(join(p.factorio.dir, "saves/world.zip")).mtimeMs;
      const stop = await c.get("/api/server/stop");
      assert.equal(stop.status, 200);
      assert.equal(stop.body, "Factorio server stopped");
      const stopped = (await c.get("/api/server/status")).body as ServerStatus;
      assert.equal(stopped.status, "stopped");
      assert.equal(stopped.running, false);
      assert.equal(stopped.last_exit?.reason, "stopped");
      assert.equal(stopped.last_exit?.code, 0);
      assert.ok(stopped.last_exit?.last_lines.some((l) => l.endsWith("Goodbye")));
      assert.ok(statSync(join(p.factorio.dir, "saves/world.zip")).mtimeMs > saved, "the game saved the map");

      // A state is pushed again when its details change (the game's version, found while it starts): changes only.
      const pushed = () =>
        ws.messages.filter((m) => m.room_name === "server_status").map((m) =>
          JSON.parse(m.message) as ServerStatus
        );
      await ws.waitFor(
        () =>
          pushed().map((s) => s.status).filter((s, i, all) => i === 0 || s !== all[i - 1]).join() ===
            "stopped,starting,running,stopping,stopped",
        "every state change pushed",
      );
      // "starting" already names the save and port being started.
      const starting = pushed().find((s) => s.status === "starting")!;
      assert.equal(starting.savefile, "world.zip");
      assert.equal(starting.port, port);
      assert.equal(starting.bindip, "127.0.0.1");

      const stop2 = await c.get("/api/server/stop");
      assert.equal(stop2.status, 409);
      assert.equal(stop2.body, "Factorio server is not running");
      const kill2 = await c.get("/api/server/kill");
      assert.equal(kill2.status, 400);
      assert.equal(kill2.body, "Factorio server is not running");
    } finally {
      await ws.close();
    }
  }),
);

Deno.test(
  "kill ends the game at once; the bus says how",
  withGamePanel(async (p) => {
    const c = await p.login();
    const events: string[] = [];
    // Changes of state only: the same state is published again when its details change (the game's version, found
    // while it starts).
    p.ctx.bus.on("server.status", ({ status, previous, exit }) => {
      if (previous !== status.status) events.push(`${previous}->${status.status}:${exit?.reason ?? ""}`);
    });
    await startGame(c);
    const r = await c.get("/api/server/kill");
    assert.equal(r.status, 200);
    assert.equal(r.body, "Factorio server killed");
    const s = p.ctx.game.status();
    assert.equal(s.status, "stopped");
    assert.equal(s.last_exit?.reason, "killed");
    assert.equal(s.last_exit?.signal, "SIGKILL");
    assert.deepEqual(events, ["stopped->starting:", "starting->running:", "running->stopped:killed"]);
    // "Load Latest" became the save the game actually loaded.
    assert.equal(s.savefile, "world.zip");
  }),
);

Deno.test(
  "a restart whose save does not finish in time: 424 with the reason, not a fault of the panel",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    // A game that hangs while saving: the stop is still going when the answer is due (45 s).
    await p.ctx.game.rcon("/fake-save-delay 120000");
    const r = await c.post("/api/server/restart");
    assert.equal(r.status, 424, r.text);
    assert.equal(r.body, "The game did not finish saving and stopping in time; it was not started again.");
    assert.equal(r.headers.get("X-Factorio-Panel"), "1");
  }),
);

Deno.test(
  "a game that does not answer its console: a change that needs it is a 424 naming why",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    await p.ctx.game.rcon("/fake-join alice");
    const pid: number = JSON.parse(readFileSync(join(p.config.dataDir, "game-process.json"), "utf8")).pid;
    // Frozen (SIGSTOP): the process is there, its console says nothing until the command times out.
    Deno.kill(pid, "SIGSTOP");
    try {
      const r = await c.post("/api/players/kick", { username: "alice" });
      assert.equal(r.status, 424, r.text);
      assert.match(r.body, /^The game did not answer the console command: /);
    } finally {
      Deno.kill(pid, "SIGCONT");
    }
  }),
);

Deno.test(
  "a crash is noticed and recorded with its exit code and last lines",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const exits: unknown[] = [];
    p.ctx.bus.on("server.status", ({ exit }) => exit && exits.push(exit));
    await assert.rejects(p.ctx.game.rcon("/fake-crash 7"));
    const s = await waitForStatus(p.ctx, "stopped");
    assert.equal(s.last_exit?.reason, "crashed");
    assert.equal(s.last_exit?.code, 7);
    assert.ok(s.last_exit?.last_lines.some((l) => l.includes("Factorio crashed")));
    assert.equal(exits.length, 1);
    assert.equal((await c.get("/api/server/status")).body.last_exit.code, 7);
  }),
);

Deno.test(
  "a crash while loading fails the start with the reason",
  withGamePanel(async (p) => {
    const c = await p.login();
    p.ctx.game.addLaunchArgs(() => ["--fake-crash-after", "50"]);
    const r = await c.post("/api/server/start", { bindip: "127.0.0.1", port: 34197, savefile: LOAD_LATEST });
    // A failure of the game, not of the panel: 422 with the game's reason.
    assert.equal(r.status, 422);
    assert.match(r.body, /^Factorio did not start \(exit code 1\): /);
    assert.equal(p.ctx.game.status().status, "stopped");
    // It never hosted: a failed start, not a crash of a running server.
    assert.equal(p.ctx.game.status().last_exit?.reason, "start-failed");
  }),
);

Deno.test(
  "a game port in use: the start fails with the game's own words",
  withGamePanel(async (p) => {
    const c = await p.login();
    const held = await holdUdpPort(0, "127.0.0.1");
    try {
      const r = await c.post("/api/server/start", {
        bindip: "127.0.0.1",
        port: held.address().port,
        savefile: "world.zip",
      });
      assert.equal(r.status, 422);
      assert.match(r.body, /^Factorio did not start \(exit code 1\): .*Host address is already in use/);
      const s = p.ctx.game.status();
      assert.equal(s.status, "stopped");
      assert.equal(s.last_exit?.reason, "start-failed");
      assert.equal(s.last_exit?.code, 1);
    } finally {
      held.close();
    }
  }),
);

Deno.test(
  "a game executable that cannot be run fails the start with a 422 naming why",
  withGamePanel(async (p) => {
    const c = await p.login();
    Deno.chmodSync(p.factorio.binary, 0o644);
    const r = await c.post("/api/server/start", { bindip: "127.0.0.1", port: 34197, savefile: "world.zip" });
    assert.equal(r.status, 422);
    assert.match(r.body, /^Factorio did not start.*ermission denied/);
    assert.equal(p.ctx.game.status().status, "stopped");
    assert.equal(p.ctx.game.status().last_exit?.reason, "start-failed");
  }),
);

Deno.test(
  "launch arguments: files from the layout, RCON on 127.0.0.1, providers; the password stays secret",
  withGamePanel(async (p) => {
    const c = await p.login();
    p.ctx.game.addLaunchArgs(() => ["--server-banlist", join(p.factorio.dir, "config/server-banlist.json")]);
    await startGame(c);
    const secretFile = join(p.dataDir, "rcon.json");
    assert.equal(statSync(secretFile).mode & 0o777, 0o600);
    const { password, port } = JSON.parse(readFileSync(secretFile, "utf8"));
    assert.ok(password.length >= 24);
    const paths = p.ctx.game.paths;
    const tail = (await c.get("/api/log/tail")).body as string[];
    const args = tail.find((l) => l.includes("Program arguments:"))!;
    for (
      const expected of [
        `"--server-settings" "${paths.serverSettings}"`,
        `"--server-adminlist" "${paths.adminList}"`,
        `"--console-log" "${paths.consoleLog}"`,
        `"--mod-directory" "${paths.mods}"`,
        `"--rcon-bind" "127.0.0.1:${port}"`,
        `"--rcon-password" "********"`,
        `"--server-banlist" "${join(p.factorio.dir, "config/server-banlist.json")}"`,
        `"--start-server-load-latest"`,
      ]
    ) assert.ok(args.includes(expected), `${expected} in ${args}`);
    assert.deepEqual(JSON.parse(readFileSync(paths.adminList, "utf8")), []);
    assert.ok(statSync(paths.serverSettings).isFile(), "created from the example");

    // Nowhere the API or the logs reach shows the password.
    const ws = await TestSocket.connect(c);
    ws.subscribe("gamelog");
    await ws.waitForMessage("gamelog", (m) => m.includes("Program arguments"));
    await ws.close();
    await c.get("/api/server/kill");
    const seen = [
      JSON.stringify(ws.messages),
      JSON.stringify((await c.get("/api/server/status")).body),
      JSON.stringify((await c.get("/api/log/tail")).body),
      readFileSync(join(p.dataDir, "panel.log"), "utf8"),
      readFileSync(join(p.dataDir, "game-last-exit.json"), "utf8"),
    ];
    for (const text of seen) assert.ok(!text.includes(password), text.slice(0, 200));
    assert.ok(seen[0].includes("********"));
  }),
);

Deno.test(
  "the log tail: last lines, bounded, [] without a log",
  withGamePanel(async (p) => {
    const c = await p.login();
    assert.deepEqual((await c.get("/api/log/tail")).body, []);
    const lines = Array.from({ length: 3000 }, (_, i) => `   ${i}.000 line ${i}`);
    writeFileSync(p.ctx.game.paths.currentLog, lines.join("\n") + "\n");
    const all = (await c.get("/api/log/tail")).body as string[];
    assert.equal(all.length, 1000);
    assert.equal(all[999], "   2999.000 line 2999");
    assert.deepEqual((await c.get("/api/log/tail?lines=2")).body, [
      "   2998.000 line 2998",
      "   2999.000 line 2999",
    ]);
    assert.equal(((await c.get("/api/log/tail?lines=999999")).body as string[]).length, 3000);
    assert.equal(((await c.get("/api/log/tail?lines=-4")).body as string[]).length, 1000);
  }),
);

Deno.test(
  "automatic restart after a crash, with a cap",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const states: string[] = [];
    p.ctx.bus.on(
      "server.status",
      ({ status, previous }) => previous !== status.status && states.push(status.status),
    );
    await assert.rejects(p.ctx.game.rcon("/fake-crash"));
    await waitForStatus(p.ctx, "stopped");
    await waitForStatus(p.ctx, "running");
    assert.deepEqual(states, ["stopped", "starting", "running"]);
    assert.ok(p.ctx.game.recentLines().some((l) => /restarts in 1 s \(attempt 1 of 2\)/.test(l)));
    // A user's stop while a restart is pending cancels it.
    await assert.rejects(p.ctx.game.rcon("/fake-crash"));
    await waitForStatus(p.ctx, "stopped");
    assert.equal((await c.get("/api/server/stop")).body, "The automatic restart was cancelled.");
    assert.equal(p.ctx.game.status().status, "stopped");
  }, { args: ["--auto-restart", "--auto-restart-delay", "1", "--auto-restart-max", "2"] }),
);

Deno.test(
  "a save named without .zip is the .zip of that name; a port given as text is a port",
  withGamePanel(async (p) => {
    const c = await p.login();
    await createFakeSave(p.factorio, "other.zip");
    const { port } = await startGame(c, { savefile: "other" });
    const s = p.ctx.game.status();
    assert.equal(s.savefile, "other.zip");
    assert.equal(s.port, port);
    await c.get("/api/server/kill");
    const again = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: String(port),
      savefile: "other.zip",
    });
    assert.equal(again.status, 200, again.text);
  }),
);

Deno.test("the last start's address, port and save are kept for the start form, across panel restarts", async () => {
  const p = await startPanelWithGame();
  let second: Awaited<ReturnType<typeof startPanelWithGame>> | null = null;
  let closed = false;
  try {
    const c = await p.login();
    assert.equal((await c.get("/api/server/status")).body.last_start, null);
    const { port } = await startGame(c, { savefile: LOAD_LATEST });
    // The save as asked ("Load Latest" loads the newest save next time too), not the one it resolved to.
    assert.equal((await c.get("/api/server/status")).body.savefile, "world.zip");
    assert.deepEqual((await c.get("/api/server/status")).body.last_start, {
      bindip: "127.0.0.1",
      port,
      savefile: LOAD_LATEST,
    });
    // The panel's own start of the same map again (Restart) leaves what the person asked for.
    assert.equal((await c.post("/api/server/restart")).status, 200);
    assert.deepEqual((await c.get("/api/server/status")).body.last_start, {
      bindip: "127.0.0.1",
      port,
      savefile: LOAD_LATEST,
    });
    await assert.rejects(p.ctx.game.rcon("/fake-crash"));
    await waitForStatus(p.ctx, "stopped");
    // A start the game fails is kept too: it is usually tried again with the same values.
    const held = await holdUdpPort(0, "127.0.0.1");
    const expected = { bindip: "127.0.0.1", port: held.address().port, savefile: "world.zip" };
    try {
      const r = await c.post("/api/server/start", expected);
      assert.equal(r.status, 422);
    } finally {
      held.close();
    }
    assert.deepEqual((await c.get("/api/server/status")).body.last_start, expected);
    await p.close({ keepData: true, keepGame: true });
    closed = true;
    second = await startPanelWithGame({ dataDir: p.dataDir, factorio: p.factorio });
    const c2 = await second.login();
    assert.deepEqual((await c2.get("/api/server/status")).body.last_start, expected);
  } finally {
    if (!closed) await p.close({ keepData: true });
    await second?.close();
    Deno.removeSync(p.factorio.dir, { recursive: true });
    Deno.removeSync(p.dataDir, { recursive: true });
  }
});

Deno.test("exit classification", () => {
  assert.equal(classify("kill", null, "SIGKILL", []), "killed");
  assert.equal(classify("stop", 0, null, []), "stopped");
  assert.equal(classify("stop", 1, null, []), "crashed");
  assert.equal(classify(null, 0, null, []), "stopped");
  assert.equal(classify(null, null, "SIGKILL", []), "crashed");
  assert.equal(classify(null, null, null, ["  1.000 Goodbye"]), "stopped");
  assert.equal(classify(null, null, null, ["Factorio crashed. ...", "  1.000 Goodbye"]), "crashed");
  assert.equal(classify("stop", null, null, ["  1.000 Saving map"]), "crashed");
  // Ended before it was hosting: a failed start, not a crash.
  assert.equal(classify(null, 1, null, ["Error: port taken"], false), "start-failed");
  assert.equal(classify(null, 1, null, [], true), "crashed");
});

Deno.test("a panel without a game installed explains what is missing", async () => {
  const p = await startPanelWithGame();
  try {
    Deno.removeSync(p.factorio.binary);
    const c = await p.login();
    const r = await c.post("/api/server/start", { bindip: "0.0.0.0", port: 34197, savefile: LOAD_LATEST });
    assert.equal(r.status, 404);
    assert.match(r.body, /The Factorio executable was not found at/);
  } finally {
    await p.close();
  }
});

Deno.test(
  "the server routes are in the table with the guards they need",
  withGamePanel(async (p) => {
    const find = (m: string, path: string) => p.routes.find((r) => r.method === m && r.path === path);
    assert.ok(find("POST", "/api/server/start"));
    assert.ok(find("POST", "/api/server/restart"));
    assert.equal(find("GET", "/api/server/stop")?.changesState, true);
    assert.equal(find("GET", "/api/server/kill")?.changesState, true);
    for (const path of ["/api/server/status", "/api/server/facVersion", "/api/log/tail"]) {
      assert.ok(find("GET", path), path);
    }
    // A stop from another site is refused before it reaches the game.
    const c = await p.login();
    await startGame(c);
    assert.equal((await c.get("/api/server/stop", { crossSite: true })).status, 403);
    assert.equal((await c.get("/api/server/kill", { crossSite: true })).status, 403);
    assert.equal(p.ctx.game.status().status, "running");
    // A start while it runs: the old API's 423.
    const again = await c.post("/api/server/start", {
      bindip: "0.0.0.0",
      port: 34197,
      savefile: LOAD_LATEST,
    });
    assert.equal(again.status, 423);
  }),
);
