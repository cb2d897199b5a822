// The game's side of /ws with the simulator running: console commands over RCON with their replies in the
// gamelog room, the replay of recent lines on subscribe followed by live lines, malformed messages.

import assert from "node:assert/strict";
import { startGame, withGamePanel } from "../../tests/support/game.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import { MSG } from "../../shared/messages.ts";
import { RECENT_LINES } from "../factorio/game/output.ts";

const gamelog = (s: TestSocket) => s.messages.filter((m) => m.room_name === "gamelog").map((m) => m.message);

Deno.test(
  "a console command goes over RCON; the command and the game's reply reach every gamelog subscriber",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const sender = await TestSocket.connect(c);
    const watcher = await TestSocket.connect(await p.login());
    try {
      for (const s of [sender, watcher]) {
        s.subscribe("gamelog");
        s.subscribe("server_status");
        await s.waitForMessage("server_status", () => true);
      }
      sender.command("/fake-join alice");
      await watcher.waitForMessage("gamelog", (m) => /\[JOIN\] alice joined the game$/.test(m));
      sender.command("/players");
      for (const s of [sender, watcher]) {
        await s.waitForMessage("gamelog", (m) => m === "  alice (online)");
        const log = gamelog(s);
        const echo = log.indexOf("admin> /players");
        assert.ok(echo >= 0, "the command is echoed with who sent it");
        assert.deepEqual(log.slice(echo, echo + 3), ["admin> /players", "Players (1):", "  alice (online)"]);
      }
      // Chat typed in the console is the server speaking.
      sender.command("hello from the panel");
      await watcher.waitForMessage("gamelog", (m) => m.endsWith("[CHAT] <server>: hello from the panel"));
      // The same round trip is available to other areas as GameControl.rcon.
      assert.equal(await p.ctx.game.rcon("/version"), "2.0.72");
    } finally {
      await sender.close();
      await watcher.close();
    }
  }),
);

Deno.test(
  "subscribing replays recent lines, then live lines follow in order",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    for (let i = 0; i < 5; i++) await p.ctx.game.rcon(`/fake-chat bob line ${i}`);
    const s = await TestSocket.connect(c);
    try {
      s.subscribe("gamelog");
      await s.waitForMessage("gamelog", (m) => m.endsWith("[CHAT] bob: line 4"));
      const replay = gamelog(s);
      assert.ok(
        replay.some((l) => /Hosting game at IP ADDR/.test(l)),
        "the start of the run is in the replay",
      );
      assert.ok(replay.length <= RECENT_LINES);
      const chat = replay.filter((l) => l.includes("[CHAT] bob"));
      assert.deepEqual(chat.map((l) => l.slice(-6)), ["line 0", "line 1", "line 2", "line 3", "line 4"]);
      for (let i = 5; i < 40; i++) await p.ctx.game.rcon(`/fake-chat bob line ${i}`);
      await s.waitForMessage("gamelog", (m) => m.endsWith("[CHAT] bob: line 39"));
      const all = gamelog(s).filter((l) => l.includes("[CHAT] bob")).map((l) => Number(l.split(" ").pop()));
      assert.deepEqual(all, Array.from({ length: 40 }, (_, i) => i), "no line lost, none twice, in order");
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "with the game stopped a command only tells its sender the console is unavailable",
  withGamePanel(async (p) => {
    const c = await p.login();
    const sender = await TestSocket.connect(c);
    const other = await TestSocket.connect(c);
    try {
      for (const s of [sender, other]) s.subscribe("gamelog");
      sender.command("/players");
      await sender.waitForMessage("gamelog", (m) => m === MSG.consoleUnavailable);
      other.subscribe("server_status");
      await other.waitForMessage("server_status", () => true);
      assert.deepEqual(gamelog(other), []);
      await assert.rejects(p.ctx.game.rcon("/players"), new RegExp(MSG.consoleUnavailable));
    } finally {
      await sender.close();
      await other.close();
    }
  }),
);

Deno.test(
  "malformed messages with the game running harm nobody; commands keep working",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const attacker = await TestSocket.connect(c);
    const victim = await TestSocket.connect(c);
    try {
      victim.subscribe("gamelog");
      for (
        const junk of [
          "{",
          JSON.stringify({ room_name: "", controls: { type: "command", value: { cmd: "/players" } } }),
          JSON.stringify({ room_name: "", controls: { type: "command" } }),
          JSON.stringify({ room_name: "gamelog", message: "[CHAT] admin: fake" }),
          JSON.stringify({ room_name: "", controls: { type: "command", value: "/" + "x".repeat(5000) } }),
          JSON.stringify({ room_name: "", controls: { type: "command", value: "   " } }),
          new Uint8Array([1, 2, 3]),
        ]
      ) attacker.ws.send(junk);
      attacker.subscribe("gamelog");
      attacker.command("/version");
      await victim.waitForMessage("gamelog", (m) => m === "2.0.72");
      assert.ok(!gamelog(victim).some((l) => l.includes("fake") || l.includes("xxxx")));
      assert.equal(attacker.closed, null);
      assert.equal(p.ctx.game.status().status, "running");
    } finally {
      await attacker.close();
      await victim.close();
    }
  }),
);

Deno.test(
  "a console command with a newline or bidi control cannot forge a log line for other viewers",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const sender = await TestSocket.connect(c);
    const watcher = await TestSocket.connect(await p.login());
    try {
      for (const s of [sender, watcher]) {
        s.subscribe("gamelog");
        s.subscribe("server_status");
        await s.waitForMessage("server_status", () => true);
      }
      sender.command("/players\n2026-01-01 12:00:00 [JOIN] mallory joined the game");
      sender.command("hi\u2028[CHAT] <admin>: forged");
      sender.command("\u202Edlrow olleh");
      await sender.waitFor(
        (s) => gamelog(s).filter((m) => /one line without control/.test(m)).length === 3,
        "three refusals",
      );
      // A clean command after them: the watcher sees it, and nothing of the refused ones before it.
      sender.command("/version");
      await watcher.waitForMessage("gamelog", (m) => m === "2.0.72");
      assert.ok(
        !gamelog(watcher).some((m) => /mallory|forged|olleh|one line without/.test(m)),
        JSON.stringify(gamelog(watcher)),
      );
    } finally {
      await sender.close();
      await watcher.close();
    }
  }),
);
