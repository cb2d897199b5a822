// Player history from the simulated game's own console lines (1.1 and 2.0): sessions, chat, counts, a
// crash ending every session, and a panel restart in the middle of a session.

import assert from "node:assert/strict";
import {
  installGame,
  killRecordedGame,
  startGame,
  startPanelWithGame,
  waitForStatus,
  withGamePanel,
} from "../../../tests/support/game.ts";
import type { Client } from "../../../tests/support/harness.ts";
import type { ChatLine, OnlineCountSample, PlayerHistoryRow } from "../../../shared/alerts.ts";
import { rmSync } from "node:fs";
import { rconExec } from "../../../tests/fake-factorio/launch.mjs";

/** Polls `read` until `ok` holds (the lines reach the panel through the log tail). */
async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const history = async (c: Client) => (await c.get("/api/players/history")).body as PlayerHistoryRow[];
const byName = (rows: PlayerHistoryRow[], name: string) => rows.find((r) => r.name === name);

for (const version of ["1.1", "2.0"] as const) {
  Deno.test(
    `${version}: joins, chat and leaves become sessions and a chat log; a crash ends every session`,
    withGamePanel(async (p) => {
      const c = await p.login();
      const alerts: string[] = [];
      p.ctx.bus.on("alert", (a) => a.kind.startsWith("player-") && alerts.push(`${a.kind}: ${a.body}`));
      await startGame(c);
      await p.ctx.game.rcon(`/fake-join alice "Jean Luc" Zoë_Ø`);
      await p.ctx.game.rcon(`/fake-chat "Jean Luc" need more iron: 50% please`);
      await p.ctx.game.rcon(`/fake-chat alice on my way`);
      await p.ctx.game.rcon(`/fake-leave alice`);
      let rows = await until(
        () => history(c),
        (r) => r.length === 3 && byName(r, "alice")?.online === false,
        "three players, alice gone",
      );
      assert.deepEqual(
        rows.map((r) => [r.name, r.sessions, r.online]).sort(),
        [["Jean Luc", 1, true], ["Zoë_Ø", 1, true], ["alice", 1, false]],
      );
      assert.deepEqual(alerts, [
        "player-joined: alice joined the game.",
        "player-joined: Jean Luc joined the game.",
        "player-joined: Zoë_Ø joined the game.",
        "player-left: alice left the game.",
      ]);
      const alice = byName(rows, "alice")!;
      assert.ok(alice.first_seen <= alice.last_seen);
      assert.ok(alice.play_time_s >= 0);

      const chat = await until(
        async () => (await c.get("/api/players/chat?q=")).body as ChatLine[],
        (l) => l.length === 2,
        "two chat lines",
      );
      assert.deepEqual(chat.map((l) => [l.name, l.message]), [["alice", "on my way"], [
        "Jean Luc",
        "need more iron: 50% please",
      ]]);
      const found = (await c.get(`/api/players/chat?q=${encodeURIComponent("50%")}`)).body as ChatLine[];
      assert.deepEqual(found.map((l) => l.name), ["Jean Luc"], "% is searched as text, not a wildcard");
      assert.deepEqual((await c.get("/api/players/chat?q=jean")).body.map((l: ChatLine) => l.name), [
        "Jean Luc",
      ], "by name too");
      assert.equal((await c.get(`/api/players/chat?q=${"x".repeat(201)}`)).status, 400);

      // alice comes back: a second session.
      await p.ctx.game.rcon(`/fake-join alice`);
      await until(() => history(c), (r) => byName(r, "alice")?.sessions === 2, "alice's second session");

      // A kick ends the session (the game's [LEAVE] after the [KICK] changes nothing more).
      await p.ctx.game.rcon(`/kick Zoë_Ø spamming`);
      await until(() => history(c), (r) => byName(r, "Zoë_Ø")?.online === false, "Zoë kicked");
      assert.equal(alerts.at(-1), "player-left: Zoë_Ø was kicked by <server> (spamming).");
      assert.equal(alerts.filter((a) => a.includes("Zoë_Ø") && a.startsWith("player-left")).length, 1);

      await p.ctx.game.rcon("/fake-crash 3").catch(() => {}); // the game dies before it answers
      await waitForStatus(p.ctx, "stopped");
      rows = await history(c);
      assert.deepEqual(rows.map((r) => r.online), [false, false, false], "the crash ended every session");
      const counts = (await c.get("/api/players/online-counts?hours=1")).body as OnlineCountSample[];
      assert.deepEqual(counts.map((s) => s.count), [1, 2, 3, 2, 3, 2, 0]);
      assert.equal((await c.get("/api/players/online-counts?hours=0")).status, 400);
    }, { version }),
  );
}

Deno.test("a panel restart mid-session keeps the session; who left or came meanwhile is brought in line", async () => {
  const factorio = await installGame("2.0");
  let p = await startPanelWithGame({ factorio });
  const dataDir = p.dataDir;
  try {
    const c = await p.login();
    await startGame(c);
    await p.ctx.game.rcon(`/fake-join alice "Old Timer"`);
    await until(() => history(c), (r) => r.length === 2, "two players online");
    await p.close({ keepData: true, keepGame: true });

    // While no panel watches, "Old Timer" leaves and bob joins: no panel reads those lines.
    await rconExec(dataDir, `/fake-leave "Old Timer"`);
    await rconExec(dataDir, `/fake-join bob`);
    p = await startPanelWithGame({ factorio, dataDir });
    await p.ctx.playerHistory.reconciled;
    const c2 = await p.login();
    let rows = await history(c2);
    assert.deepEqual(
      rows.map((r) => [r.name, r.sessions, r.online]).sort(),
      [["Old Timer", 1, false], ["alice", 1, true], ["bob", 1, true]],
      "alice's session runs on across the restart; the game's own list settles the others",
    );

    await p.ctx.game.rcon(`/fake-leave alice`);
    rows = await until(() => history(c2), (r) => byName(r, "alice")?.online === false, "alice left");
    assert.equal(byName(rows, "alice")!.sessions, 1, "one session from before the restart to the leave");

    // The game ends while no panel is there: the next panel closes the sessions it finds open.
    await p.close({ keepData: true, keepGame: true });
    killRecordedGame(dataDir);
    await new Promise((r) => setTimeout(r, 500));
    p = await startPanelWithGame({ factorio, dataDir });
    await waitForStatus(p.ctx, "stopped");
    rows = await history(await p.login());
    assert.deepEqual(rows.map((r) => [r.name, r.online]).sort(), [["Old Timer", false], ["alice", false], [
      "bob",
      false,
    ]]);
  } finally {
    await p.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorio.dir, { recursive: true, force: true });
  }
});
