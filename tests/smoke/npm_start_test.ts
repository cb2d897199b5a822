// The README's own command, `npm start`, against the Factorio simulator, driven through the API the way the
// PWA drives it: start, save & stop (the game saved and exited), start, kill (the process is gone), a panel
// restart with the game running (re-attached: running, console answers, stop works, no crash recorded, no
// alert sent), and a game killed from outside (stopped, crash recorded). This is the path that once failed
// for every user while every test passed, because the tests ran with wider permissions than npm start.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installGame } from "../support/game.ts";
import { freeUdpPort } from "../fake-factorio/sim.ts";
import { startPanelProcess } from "../support/process.ts";
import { TestSocket } from "../support/ws.ts";
import { isAlive } from "../../backend/factorio/game/liveness.ts";
import { CA_FILE, FakePushService } from "../fake-push/service.ts";
import { subscribeDevice } from "../support/push.ts";
import type { Client } from "../support/harness.ts";
import { until } from "../support/until.ts";

const PASSWORD = "smoke-test-password";

function recordedPid(dataDir: string): number {
  return JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid;
}

async function status(c: Client) {
  const r = await c.get("/api/server/status");
  assert.equal(r.status, 200);
  return r.body;
}

Deno.test("npm start: start, save & stop, kill, panel restart with the game running, a game killed from outside", async () => {
  const factorio = await installGame("2.0", ["world.zip"]);
  const dataDir = mkdtempSync(join(tmpdir(), "panel-smoke-"));
  const fake = await FakePushService.start();
  const args = [
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--data-dir",
    dataDir,
    "--factorio-dir",
    factorio.dir,
    "--push-ca-file",
    CA_FILE,
    "--push-private-hosts",
    "127.0.0.1",
    "--push-subject",
    "mailto:ops@example.org",
  ];
  const env = {
    PANEL_ADMIN_PASSWORD: PASSWORD,
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "/root",
  };
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    if (Deno.env.get("SMOKE_DEBUG")) console.error(`smoke: ${name}...`);
    try {
      return await fn();
    } finally {
      timings[name] = Math.round(performance.now() - t0);
    }
  };
  let panel = await timed(
    "npm start to listening",
    () => startPanelProcess({ args, env, viaNpm: true, startTimeoutMs: 240_000 }),
  );
  try {
    let c = await panel.login("admin", PASSWORD);
    const { sub } = await subscribeDevice(c, fake, { events: ["crashed", "stopped"] });
    const port = await freeUdpPort();
    const start = { bindip: "127.0.0.1", port, savefile: "world.zip" };
    const save = join(factorio.dir, "saves", "world.zip");

    // Start, then Save & Stop: the game saved the map and its process is gone.
    const started = await timed("start", () => c.post("/api/server/start", start));
    assert.equal(started.status, 200, started.text);
    assert.equal((await status(c)).status, "running");
    let pid = recordedPid(dataDir);
    assert.ok(await isAlive(pid, null));
    const savedBefore = statSync(save).mtimeMs;
    const stopped = await timed("save & stop", () => c.get("/api/server/stop"));
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(stopped.body, "Factorio server stopped");
    assert.ok(!await isAlive(pid, null), "the game process is gone when Save & Stop answers");
    assert.ok(statSync(save).mtimeMs > savedBefore, "the game saved the map");
    let s = await status(c);
    assert.equal(s.status, "stopped");
    assert.equal(s.last_exit.reason, "stopped");

    // Start, then Kill: the process is gone when Kill answers.
    assert.equal((await c.post("/api/server/start", start)).status, 200);
    pid = recordedPid(dataDir);
    const killed = await timed("kill", () => c.get("/api/server/kill"));
    assert.equal(killed.status, 200, killed.text);
    assert.ok(!await isAlive(pid, null), "the game process is gone when Kill answers");
    s = await status(c);
    assert.equal(s.status, "stopped");
    assert.equal(s.last_exit.reason, "killed");

    // A panel restart with the game running: found again, console answers, stop works, nothing crashed.
    assert.equal((await c.post("/api/server/start", start)).status, 200);
    pid = recordedPid(dataDir);
    const pushesBefore = fake.delivered(sub.id).length;
    // npm itself answers a SIGTERM with 143 (128 + 15) after the panel has shut down cleanly.
    assert.ok([0, 143].includes(await timed("panel stop (SIGTERM)", () => panel.stop())));
    assert.match(panel.output(), /shutting down \(the game server keeps running\)/);
    assert.ok(await isAlive(pid, null), "stopping the panel leaves the game running");
    panel = await timed(
      "npm start again",
      () => startPanelProcess({ args, env, viaNpm: true, startTimeoutMs: 240_000 }),
    );
    c = await panel.login("admin", PASSWORD);
    s = await status(c);
    assert.equal(s.status, "running");
    assert.equal(recordedPid(dataDir), pid, "the same game");
    assert.notEqual(s.last_exit?.reason, "crashed");
    const ws = await TestSocket.connect(c);
    try {
      ws.subscribe("gamelog");
      ws.command("/time");
      await timed(
        "console answer after re-attach",
        () => ws.waitForMessage("gamelog", (m) => m === "admin> /time"),
      );
      await ws.waitForMessage(
        "gamelog",
        (m) => /\d+ (seconds|minutes|hours|days)/.test(m) || /tick/i.test(m),
      );
    } finally {
      await ws.close();
    }
    const stop2 = await timed("save & stop after re-attach", () => c.get("/api/server/stop"));
    assert.equal(stop2.status, 200, stop2.text);
    // Gone: a game no longer the panel's child may linger as a zombie until init reaps it; that is gone too.
    assert.ok(!await isAlive(pid, null));
    s = await status(c);
    assert.equal(s.last_exit.reason, "stopped");
    // Only the stop itself was announced: no crash alert from the restart.
    const alerts = await until("the stop alert", async () => {
      const d = fake.delivered(sub.id).slice(pushesBefore);
      return d.length > 0 ? d : null;
    });
    assert.deepEqual(alerts.map((a) => JSON.parse(a.payload ?? "{}").kind), ["stopped"]);

    // A game killed from outside: stopped, and the crash is recorded.
    assert.equal((await c.post("/api/server/start", start)).status, 200);
    pid = recordedPid(dataDir);
    Deno.kill(pid, "SIGKILL");
    s = await timed("outside kill noticed", () =>
      until("the status to say stopped", async () => {
        const st = await status(c);
        return st.status === "stopped" ? st : null;
      }));
    assert.equal(s.last_exit.reason, "crashed");
    console.log(`smoke timings (ms): ${JSON.stringify(timings)}`);
  } finally {
    try {
      Deno.kill(recordedPid(dataDir), "SIGKILL");
    } catch {
      // no game left
    }
    await panel.stop();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorio.dir, { recursive: true, force: true });
  }
});
