// GET /api/server/status answers the JSON text GameServer.statusJson keeps until something in it
// changes. Here the kept text is compared with a fresh status() at every step where a value changes:
// stopped, running (Load Latest resolved to the save), crashed, started and stopped again, and the game's
// executable gone and back (a change without any change of state).

import assert from "node:assert/strict";
import { renameSync } from "node:fs";
import { LOAD_LATEST } from "../../../shared/api.ts";
import { startGame, waitForStatus, withGamePanel } from "../../../tests/support/game.ts";
import type { Client } from "../../../tests/support/harness.ts";
import type { AppContext } from "../../boot/context.ts";
import { until } from "../../../tests/support/until.ts";

async function sameAsFresh(c: Client, ctx: AppContext, step: string) {
  const r = await c.get("/api/server/status");
  assert.equal(r.status, 200, step);
  assert.equal(r.headers.get("content-type"), "application/json", step);
  assert.deepEqual(r.body, JSON.parse(JSON.stringify(ctx.game.status())), step);
  return r.body;
}

Deno.test(
  "the status text kept between changes is what status() says at every step",
  withGamePanel(async (p) => {
    const c = await p.login();
    const ctx = p.ctx;
    assert.equal((await sameAsFresh(c, ctx, "stopped")).status, "stopped");
    await sameAsFresh(c, ctx, "stopped, asked again");

    const { port } = await startGame(c, { savefile: LOAD_LATEST });
    await waitForStatus(ctx, "running");
    await until("the save the game loaded", () => ctx.game.status().savefile === "world.zip", 15_000);
    const running = await sameAsFresh(c, ctx, "running");
    assert.equal(running.port, port);
    assert.equal(running.savefile, "world.zip");

    await assert.rejects(ctx.game.rcon("/fake-crash 3"));
    await waitForStatus(ctx, "stopped");
    const crashed = await sameAsFresh(c, ctx, "crashed");
    assert.equal(crashed.last_exit?.reason, "crashed");

    await startGame(c, { savefile: "world.zip" });
    await waitForStatus(ctx, "running");
    await sameAsFresh(c, ctx, "running again");
    assert.equal((await c.get("/api/server/stop")).status, 200);
    assert.equal((await sameAsFresh(c, ctx, "stopped by the user")).last_exit?.reason, "stopped");

    // No state changes here: only what the status shows about the executable.
    const binary = p.factorio.binary;
    renameSync(binary, binary + ".away");
    await until("the executable to be missed", () => !ctx.game.status().factorio_found, 15_000);
    const gone = await sameAsFresh(c, ctx, "executable gone");
    assert.ok(
      gone.problems.some((x: string) => x.startsWith("No Factorio server was found")),
      gone.problems.join(),
    );
    renameSync(binary + ".away", binary);
    await until("the executable to be found again", () => ctx.game.status().factorio_found, 15_000);
    assert.deepEqual((await sameAsFresh(c, ctx, "executable back")).problems, []);
  }),
);
