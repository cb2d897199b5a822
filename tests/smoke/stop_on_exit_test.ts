// In a container the game cannot outlive the panel: with --stop-game-on-exit, stopping the panel saves
// and stops the game first. Started by the launcher, like npm start.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installGame } from "../support/game.ts";
import { freeUdpPort } from "../fake-factorio/sim.ts";
import { startPanelProcess } from "../support/process.ts";
import { isAlive } from "../../backend/factorio/game/liveness.ts";

Deno.test("--stop-game-on-exit: SIGTERM to the panel saves and stops the game before it exits", async () => {
  const factorio = await installGame("2.0", ["world.zip"]);
  const dataDir = mkdtempSync(join(tmpdir(), "panel-exit-"));
  const panel = await startPanelProcess({
    args: [
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--data-dir",
      dataDir,
      "--factorio-dir",
      factorio.dir,
      "--stop-game-on-exit",
    ],
    env: { PANEL_ADMIN_PASSWORD: "exit-test-password" },
  });
  let pid = 0;
  try {
    const c = await panel.login("admin", "exit-test-password");
    const r = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "world.zip",
    });
    assert.equal(r.status, 200, r.text);
    pid = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid;
    const before = statSync(join(factorio.dir, "saves", "world.zip")).mtimeMs;
    assert.equal(await panel.stop(), 0);
    assert.ok(!await isAlive(pid, null), "the game is gone when the panel has exited");
    assert.ok(statSync(join(factorio.dir, "saves", "world.zip")).mtimeMs > before, "and it saved the map");
    assert.match(panel.output(), /saving and stopping the game, then shutting down/);
  } finally {
    if (pid) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
    await panel.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorio.dir, { recursive: true, force: true });
  }
});
