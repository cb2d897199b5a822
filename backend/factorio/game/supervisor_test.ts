// Panel restarts do not touch the game: a new panel process over the same data dir finds it again, with
// status, console and logs working, and notices when it ends; a game that ended while no panel watched is
// reported as it ended.

import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  type GamePanel,
  installGame,
  killRecordedGame,
  startGame,
  startPanelWithGame,
  waitForStatus,
} from "../../../tests/support/game.ts";
import { TestSocket } from "../../../tests/support/ws.ts";
import { exists, isAlive, startOf } from "./liveness.ts";

/**
 * Runs `fn` with a panel on a fresh simulator and a function that "restarts the panel": closes it, leaving
 * game and data dir, and starts a new one over them. Everything is killed and removed afterwards.
 */
function acrossRestarts(
  version: "1.1" | "2.0",
  fn: (first: GamePanel, restart: () => Promise<GamePanel>) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const factorio = await installGame(version);
    const first = await startPanelWithGame({ factorio });
    let second: GamePanel | null = null;
    try {
      await fn(first, async () => {
        await first.close({ keepData: true, keepGame: true });
        second = await startPanelWithGame({ factorio, dataDir: first.dataDir });
        return second;
      });
    } finally {
      killRecordedGame(first.dataDir);
      if (second) await (second as GamePanel).close();
      else await first.close({ keepData: true });
      rmSync(first.dataDir, { recursive: true, force: true });
      rmSync(factorio.dir, { recursive: true, force: true });
    }
  };
}

function gamePid(dataDir: string): number {
  return JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid;
}

Deno.test(
  "a restarted panel re-attaches: status running, console, live log, stop",
  acrossRestarts("2.0", async (first, restart) => {
    const { port } = await startGame(await first.login(), { savefile: "world.zip" });
    const pid = gamePid(first.dataDir);
    const second = await restart();
    const s = second.ctx.game.status();
    assert.equal(s.status, "running");
    assert.equal(s.port, port);
    assert.equal(s.savefile, "world.zip");
    assert.equal(gamePid(second.dataDir), pid, "the same game");

    const c = await second.login();
    const ws = await TestSocket.connect(c);
    try {
      ws.subscribe("gamelog");
      await ws.waitForMessage("gamelog", (m) => /Hosting game at/.test(m));
      ws.command("/fake-chat carol still here");
      await ws.waitForMessage("gamelog", (m) => m.endsWith("[CHAT] carol: still here"));
      assert.ok(ws.messages.some((m) => m.message === "admin> /fake-chat carol still here"));
    } finally {
      await ws.close();
    }
    assert.ok(((await c.get("/api/log/tail")).body as string[]).some((l) => l.includes("Hosting game at")));

    const stop = await c.get("/api/server/stop");
    assert.equal(stop.status, 200);
    const after = second.ctx.game.status();
    assert.equal(after.status, "stopped");
    // Not the panel's child any more: no exit code, but the game said goodbye after saving.
    assert.equal(after.last_exit?.reason, "stopped");
    assert.equal(after.last_exit?.code, null);
  }),
);

Deno.test(
  "a re-attached game that crashes is noticed",
  acrossRestarts("1.1", async (first, restart) => {
    await startGame(await first.login());
    const second = await restart();
    assert.equal(second.ctx.game.status().status, "running");
    await assert.rejects(second.ctx.game.rcon("/fake-crash 9"));
    const s = await waitForStatus(second.ctx, "stopped");
    assert.equal(s.last_exit?.reason, "crashed");
    assert.ok(s.last_exit?.last_lines.some((l) => l.includes("Factorio crashed")));
  }),
);

Deno.test(
  "a game that died while no panel watched is reported as crashed when the panel comes back",
  acrossRestarts("2.0", async (first, restart) => {
    await startGame(await first.login());
    const pid = gamePid(first.dataDir);
    await first.close({ keepData: true, keepGame: true });
    killRecordedGame(first.dataDir);
    // The test process is the game's parent: wait until it has really gone.
    const deadline = Date.now() + 15_000;
    while (await isAlive(pid, null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    const second = await restart();
    const s = second.ctx.game.status();
    assert.equal(s.status, "stopped");
    assert.equal(s.last_exit?.reason, "crashed");
    assert.ok(s.last_exit?.last_lines.some((l) => l.includes("Hosting game at")));
    // A new start works as usual.
    await startGame(await second.login());
    assert.equal(second.ctx.game.status().status, "running");
  }),
);

Deno.test("liveness: a pid is the game while it exists with the recorded start, or with none recorded", async () => {
  const start = await startOf(Deno.pid);
  assert.ok(start !== null, "ps reports this process");
  assert.ok(await isAlive(Deno.pid, start));
  assert.ok(!await isAlive(Deno.pid, start! + 100), "a reused pid has another start time");
  assert.ok(await isAlive(Deno.pid, null), "an unknown start time still lets the panel reach the game");
  assert.ok(!await isAlive(2 ** 22 + 12345, null), "no such process");
  assert.ok(!await exists(2 ** 22 + 12345));
});

Deno.test("liveness: a zombie is not alive", async () => {
  // sh starts a child that exits at once, then becomes `sleep`, which never reaps it: a zombie for 5 s.
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", "sleep 0 & echo $!; exec sleep 5"],
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  const zombie = Number(new TextDecoder().decode(value).trim());
  try {
    let zombieSeen = false;
    for (let i = 0; i < 200 && !zombieSeen; i++) {
      zombieSeen = await exists(zombie) && !await isAlive(zombie, null);
      if (!zombieSeen) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(zombieSeen, "the exited, unreaped child counts as gone although its pid exists");
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await child.stdout.cancel().catch(() => {});
  }
});
