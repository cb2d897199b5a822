// Stop and kill with the panel's data disk full: a real panel (launcher command line) whose --data-dir is a
// tiny tmpfs in a private mount namespace (`unshare -rm`), the simulator as the game on an ordinary disk.
// The game is signalled first and the panel records afterwards, so a record it cannot write never keeps a
// game running; kill depends on no write at all; a refusal stays a refusal when its activity row cannot be
// written.

import assert from "node:assert/strict";
import { PROCESS_ADMIN_PASSWORD, spawnWrappedPanel, type WrappedPanel } from "../../tests/support/wrapped.ts";
import { Client } from "../../tests/support/harness.ts";
import { freeTcpPort, freeUdpPort, installGame } from "../../tests/support/game.ts";
import { findStrayGame } from "../factorio/game/stray.ts";
import { factorioPaths } from "../factorio/layout.ts";
import { rmSync } from "node:fs";
import { PANEL_MSG } from "../../shared/messages.ts";

const canMount =
  new Deno.Command("unshare", { args: ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"] })
    .outputSync().success;

/** Runs `script` with sh outside the panel; the panel's private tmpfs is reached through /proc/PID/root. */
function sh(script: string): void {
  const out = new Deno.Command("sh", { args: ["-c", script], stdout: "null", stderr: "piped" }).outputSync();
  if (!out.success) throw new Error(`${script}: ${new TextDecoder().decode(out.stderr)}`);
}

/** Fills every free byte of the panel's data dir (a tmpfs), or frees it again. */
function fill(panel: WrappedPanel): void {
  sh(`dd if=/dev/zero of=/proc/${panel.pid}/root${panel.dataDir}/filler bs=4k 2>/dev/null || true`);
  // Full: not even a small file fits.
  assert.throws(() => sh(`printf x > /proc/${panel.pid}/root${panel.dataDir}/probe`));
}
function free(panel: WrappedPanel): void {
  sh(`rm -f /proc/${panel.pid}/root${panel.dataDir}/filler`);
}

Deno.test({
  name: "a full data disk: Save & Stop and Kill still end the game, and a stop of a stopped game stays a 409",
  ignore: !canMount,
  fn: async () => {
    const game = await installGame("2.0", ["world.zip"]);
    const panel = await spawnWrappedPanel({
      wrap: ["unshare", "-rm"],
      shell: (dataDir) => `mount -t tmpfs -o size=4m tmpfs ${dataDir}`,
      args: ["--factorio-dir", game.dir, "--rcon-port", String(await freeTcpPort())],
    });
    const c = new Client(panel.url, panel.url);
    try {
      const login = await c.post("/api/login", { username: "admin", password: PROCESS_ADMIN_PASSWORD });
      assert.equal(login.status, 200, login.text);
      const status = async () => (await c.get("/api/server/status")).body.status as string;
      const start = async () => {
        const r = await c.post("/api/server/start", {
          bindip: "127.0.0.1",
          port: await freeUdpPort(),
          savefile: "world.zip",
        });
        assert.equal(r.status, 200, r.text);
      };

      await start();
      fill(panel);
      const stop = await c.get("/api/server/stop");
      assert.deepEqual([stop.status, stop.body], [200, PANEL_MSG.serverStopped]);
      assert.equal(await status(), "stopped");
      // Nothing runs any more: the answer is the old API's 409, not a 507 for the activity row.
      const again = await c.get("/api/server/stop");
      assert.deepEqual([again.status, again.body], [409, PANEL_MSG.serverNotRunning]);
      const kill = await c.get("/api/server/kill");
      assert.deepEqual([kill.status, kill.body], [400, PANEL_MSG.serverNotRunning]);

      free(panel);
      await start();
      fill(panel);
      const killed = await c.get("/api/server/kill");
      assert.deepEqual([killed.status, killed.body], [200, PANEL_MSG.serverKilled]);
      assert.equal(await status(), "stopped");

      // Space back: the next start and Save & Stop work as always.
      free(panel);
      await start();
      const stopped = await c.get("/api/server/stop");
      assert.deepEqual([stopped.status, stopped.body], [200, PANEL_MSG.serverStopped]);
      assert.ok(panel.alive());
    } finally {
      if (panel.alive()) await c.get("/api/server/kill").catch(() => {});
      await panel.stop();
      // Whatever still runs from this game directory (a failed test) is ended here.
      const left = await findStrayGame(factorioPaths({ factorioDir: game.dir, factorioBinary: game.binary }));
      if (left) Deno.kill(left.pid, "SIGKILL");
      rmSync(game.dir, { recursive: true, force: true });
    }
  },
});
