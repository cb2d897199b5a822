// A game from this Factorio directory that the panel has no record of (started by hand, or the panel's
// record was lost) is found, shown with what is wrong, and can be stopped from Controls. And the game's
// own files, which hold its command line with the RCON password, are owner-only.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FakeFactorio,
  installGame,
  startGame,
  startPanelWithGame,
  waitForStatus,
  withGamePanel,
} from "../../../tests/support/game.ts";
import { freeUdpPort } from "../../../tests/fake-factorio/sim.ts";
import { isAlive, parsePsLine } from "./liveness.ts";
import { findStrayGame } from "./stray.ts";
import { factorioPaths } from "../layout.ts";
import { LOAD_LATEST } from "../../../shared/api.ts";
import { startPanelProcess } from "../../../tests/support/process.ts";

/**
 * A game started by hand (not by a panel) from a new simulated install, serving world.zip; `fn` runs once
 * it shows in ps. The game is killed and the install removed afterwards.
 */
async function withHandStartedGame(
  fn: (game: Deno.ChildProcess, factorio: FakeFactorio, port: number) => Promise<void>,
): Promise<void> {
  const factorio = await installGame("2.0", ["world.zip"]);
  const port = await freeUdpPort();
  const game = new Deno.Command(factorio.binary, {
    args: [
      "--start-server",
      join(factorio.dir, "saves", "world.zip"),
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
    ],
    cwd: factorio.dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    // Until the simulator has bound its port, it is merely starting; give it a moment to show up in ps.
    await new Promise((r) => setTimeout(r, 500));
    await fn(game, factorio, port);
  } finally {
    try {
      game.kill("SIGKILL");
    } catch {
      // already gone
    }
    await game.status;
    rmSync(factorio.dir, { recursive: true, force: true });
  }
}

Deno.test("a game started by hand from this directory is found at start-up and stopped from the panel", () =>
  withHandStartedGame(async (game, factorio, port) => {
    const p = await startPanelWithGame({ factorio });
    try {
      const s = p.ctx.game.status();
      assert.equal(s.status, "running");
      assert.equal(s.port, port);
      assert.ok(
        s.problems.some((x) => x.includes(`pid ${game.pid}`) && x.includes("not started by the panel")),
        s.problems.join(),
      );
      const c = await p.login();
      // Another start is refused with words that say why.
      const again = await c.post("/api/server/start", {
        bindip: "127.0.0.1",
        port: await freeUdpPort(),
        savefile: LOAD_LATEST,
      });
      assert.equal(again.status, 423);
      // Save & Stop reaches it: SIGINT, the game saves and exits.
      const stop = await c.get("/api/server/stop");
      assert.equal(stop.status, 200, stop.text);
      assert.equal((await game.status).code, 0);
      assert.ok(!await isAlive(game.pid, null));
      assert.equal(p.ctx.game.status().status, "stopped");
      // The port is free again: the panel's own start works.
      await startGame(c, { port, savefile: "world.zip" });
    } finally {
      await p.close();
    }
  }));

// The panel as npm start runs it: main.ts lists the processes before it loads the rest of the panel, and
// start-up looks for the game in that list.
Deno.test("started as npm start starts it, the panel finds a game started by hand and stops it", () =>
  withHandStartedGame(async (game, factorio, port) => {
    const dataDir = mkdtempSync(join(tmpdir(), "panel-stray-"));
    const panel = await startPanelProcess({
      args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir, "--factorio-dir", factorio.dir],
      env: { PANEL_ADMIN_PASSWORD: "stray-test-password", PATH: Deno.env.get("PATH") ?? "" },
    });
    try {
      const c = await panel.login("admin", "stray-test-password");
      const s = await c.get("/api/server/status");
      assert.equal(s.status, 200);
      assert.equal(s.body.status, "running");
      assert.equal(s.body.port, port);
      assert.ok(s.body.problems.some((x: string) => x.includes(`pid ${game.pid}`)), s.body.problems.join());
      const stop = await c.get("/api/server/stop");
      assert.equal(stop.status, 200, stop.text);
      assert.equal((await game.status).code, 0);
    } finally {
      await panel.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }));

Deno.test(
  "the game's log files are owner-only (they hold its command line)",
  withGamePanel(async (p) => {
    // A log left world-readable by an earlier run is tightened too.
    writeFileSync(join(p.factorio.dir, "factorio-previous.log"), "old run\n", { mode: 0o644 });
    await startGame(await p.login(), { savefile: "world.zip" });
    await p.ctx.game.rcon("/fake-join alice"); // something for the console log
    for (const name of ["factorio-current.log", "factorio-previous.log", "factorio-console.log"]) {
      const mode = statSync(join(p.factorio.dir, name)).mode & 0o777;
      assert.equal(mode.toString(8), "600", name);
    }
    assert.equal((statSync(join(p.dataDir, "game-output.log")).mode & 0o777).toString(8), "600");
  }),
);

Deno.test("an unreadable rcon.json is reported, kept aside, and recovered from the running game", async () => {
  const first = await startPanelWithGame({});
  const dataDir = first.dataDir;
  try {
    await startGame(await first.login(), { savefile: "world.zip" });
    await first.close({ keepData: true, keepGame: true });
    writeFileSync(join(dataDir, "rcon.json"), "{ not json");
    const second = await startPanelWithGame({ factorio: first.factorio, dataDir });
    try {
      // The game's own command line still has the secret: the console works without a restart.
      assert.equal(second.ctx.game.status().status, "running");
      assert.deepEqual(second.ctx.game.status().problems, []);
      const reply = await second.ctx.game.rcon("/time");
      assert.ok(reply.length > 0);
      assert.ok(
        statSync(join(dataDir, "rcon.json.unreadable")).isFile(),
        "the unreadable file is kept aside",
      );
    } finally {
      await second.close({ keepData: true });
    }
    // A panel started with an unreadable file and no game running says so, naming the file.
    writeFileSync(join(dataDir, "rcon.json"), "[]");
    const third = await startPanelWithGame({ factorio: first.factorio, dataDir });
    try {
      const problems = third.ctx.game.status().problems;
      assert.ok(
        problems.some((x) => x.includes(join(dataDir, "rcon.json")) && x.includes("cannot be read")),
        problems.join(),
      );
      // The next start writes a new one and the problem is gone.
      await startGame(await third.login(), { savefile: "world.zip" });
      assert.deepEqual(third.ctx.game.status().problems, []);
      await waitForStatus(third.ctx, "running");
    } finally {
      await third.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(first.factorio.dir, { recursive: true, force: true });
  }
});

Deno.test("a game found by its executable alone: ps pads its columns, and nothing else names the directory", async () => {
  // factorio-docker's layout: the game under /opt/factorio, its saves and mods under /factorio.
  const paths = factorioPaths({ factorioDir: "/factorio", factorioBinary: "/opt/factorio/bin/x64/factorio" });
  // As `ps -e -o pid=,etimes=,stat=,args=` prints it: the state column is padded before the command line.
  const lines = [
    "    1 80000 Ss   /sbin/init",
    " 2091      88 Sl   /opt/factorio/bin/x64/factorio --port 34200 --start-server /home/ann/world.zip",
  ];
  const stray = await findStrayGame(paths, null, Promise.resolve(lines.map((l) => parsePsLine(l, 80489)!)));
  assert.deepEqual(
    stray && { pid: stray.pid, port: stray.port, savefile: stray.savefile, bootStart: stray.bootStart },
    {
      pid: 2091,
      port: 34200,
      savefile: "world.zip",
      bootStart: 80401,
    },
  );
  const other = factorioPaths({ factorioDir: "/factorio", factorioBinary: "/srv/other/bin/x64/factorio" });
  assert.equal(
    await findStrayGame(other, null, Promise.resolve(lines.map((l) => parsePsLine(l, 80489)!))),
    null,
  );
});
