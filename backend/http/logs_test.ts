// The Logs page's backend with the simulator running: the whole log as a download (streamed, redacted,
// 404 before the game has run), the "logs" /ws room (the game's lines as they come, in batches, without a
// replay), and the log tail of the old API as before.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { killGame, startGame, withGamePanel } from "../../tests/support/game.ts";
import { TestSocket } from "../../tests/support/ws.ts";

Deno.test(
  "the whole log downloads as a file, redacted; 404 before the game has run",
  withGamePanel(async (p) => {
    const c = await p.login();
    const none = await c.get("/api/log/download");
    assert.equal(none.status, 404);
    assert.equal(none.body, "There is no log yet: the game has not run.");

    await startGame(c);
    await killGame(p.ctx);
    const { password } = JSON.parse(readFileSync(join(p.dataDir, "rcon.json"), "utf8"));
    const file = p.ctx.game.paths.currentLog;
    const written = readFileSync(file, "utf8");
    assert.ok(written.includes(password), "the game logs its command line, password included");
    const r = await c.get("/api/log/download");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.match(r.headers.get("content-disposition")!, /^attachment; filename="factorio-current\.log"/);
    assert.equal(r.text, written.replaceAll(password, "********"));

    // A log of many read chunks, the password everywhere (also across chunk edges), no newline at the end.
    const lines = Array.from(
      { length: 40_000 },
      (_, i) => `${String(i).padStart(8)}.000 Info line ${i} ${password} ${"x".repeat(i % 97)}`,
    );
    writeFileSync(file, lines.join("\n"));
    const big = await c.get("/api/log/download");
    assert.equal(big.status, 200);
    assert.ok(!big.text.includes(password));
    assert.equal(big.text, lines.join("\n").replaceAll(password, "********"));

    // The old API's tail is as it was.
    const tail = (await c.get("/api/log/tail?lines=2")).body as string[];
    assert.deepEqual(
      tail,
      lines.slice(-2).map((l) => l.replaceAll(password, "********")),
    );
  }),
);

Deno.test(
  "the logs room: the game's lines as they come, in batches, without a replay",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const s = await TestSocket.connect(c);
    try {
      s.subscribe("logs");
      // Answered after the subscribe above was handled: from here on, lines reach the room.
      s.subscribe("server_status");
      await s.waitForMessage("server_status", () => true);
      for (let i = 0; i < 30; i++) await p.ctx.game.rcon(`/fake-chat bob line ${i}`);
      await s.waitForMessage("logs", (m) => m.endsWith("[CHAT] bob: line 29"));
      const messages = s.messages.filter((m) => m.room_name === "logs").map((m) => m.message);
      const lines = messages.flatMap((m) => m.split("\n"));
      assert.ok(!lines.some((l) => l.includes("Hosting game")), "no replay of what came before");
      const chat = lines.filter((l) => l.includes("[CHAT] bob")).map((l) => Number(l.split(" ").pop()));
      assert.deepEqual(chat, Array.from({ length: 30 }, (_, i) => i), "every line, once, in order");
      // What the panel adds to the game's output (a console command and its answer) is there too.
      s.command("/players");
      await s.waitForMessage("logs", (m) => m.split("\n").includes("admin> /players"));
    } finally {
      await s.close();
    }
  }),
);
