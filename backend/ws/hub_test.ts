import assert from "node:assert/strict";
import { withPanel } from "../../tests/support/harness.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import type { ServerStatus } from "../../shared/api.ts";
import { WS_CLOSE } from "./hub.ts";
import { WS_PER_SIGN_IN, WS_TOO_MANY } from "../../shared/ws.ts";
import { tokenClient } from "../../tests/support/roles.ts";
import { until } from "../../tests/support/until.ts";

const status: ServerStatus = {
  status: "running",
  running: true,
  address: "0.0.0.0",
  bindip: "0.0.0.0",
  port: 34197,
  savefile: "world.zip",
  fac_version: "2.0.72",
  base_mod_version: "2.0.72",
  since: new Date(0).toISOString(),
  last_exit: null,
  started_at: null,
  factorio_found: true,
  factorio_dir: "/opt/factorio",
  problems: [],
  last_start: null,
};

Deno.test(
  "subscribers of a room get its replay, then live messages; others get nothing",
  withPanel(async (p) => {
    p.ctx.hub.setReplay("gamelog", () => ["old line 1", "old line 2"]);
    p.ctx.hub.setReplay("server_status", () => [JSON.stringify(status)]);
    const c = await p.login();
    const sub = await TestSocket.connect(c);
    const other = await TestSocket.connect(c);
    const statuses = () =>
      sub.messages.filter((m) => m.room_name === "server_status").map((m) => JSON.parse(m.message));
    try {
      // A socket handles its messages in order, so a replay also confirms every message sent before it.
      sub.subscribe("gamelog");
      sub.subscribe("server_status");
      await sub.waitFor(() => statuses().length === 1, "the status replay");
      assert.deepEqual(statuses()[0], status, "status travels as a JSON string, like the old API");
      p.ctx.bus.emit("server.log", { line: "live line" });
      await sub.waitForMessage("gamelog", (m) => m === "live line");
      assert.deepEqual(sub.messages.filter((m) => m.room_name === "gamelog").map((m) => m.message), [
        "old line 1",
        "old line 2",
        "live line",
      ]);

      p.ctx.bus.emit("server.status", {
        status: { ...status, status: "stopping" },
        previous: "running",
        exit: null,
      });
      await sub.waitFor(() => statuses().length === 2, "the pushed status");
      assert.equal(statuses()[1].status, "stopping");

      sub.unsubscribe("gamelog");
      sub.unsubscribe("server_status");
      sub.subscribe("server_status");
      await sub.waitFor(() => statuses().length === 3, "the second replay");
      p.ctx.bus.emit("server.log", { line: "after unsubscribe" });
      p.ctx.bus.emit("server.status", { status, previous: "stopping", exit: null });
      await sub.waitFor(() => statuses().length === 4, "a status after the log line");
      assert.ok(!sub.messages.some((m) => m.message === "after unsubscribe"));
      assert.equal(other.messages.length, 0);
    } finally {
      await sub.close();
      await other.close();
    }
  }),
);

Deno.test(
  "malformed, oversized and injecting messages are ignored without harming anyone",
  withPanel(async (p) => {
    const c = await p.login();
    const attacker = await TestSocket.connect(c);
    const victim = await TestSocket.connect(c);
    try {
      p.ctx.hub.setReplay("server_status", () => ["{}"]);
      victim.subscribe("gamelog");
      victim.subscribe("server_status");
      await victim.waitForMessage("server_status", () => true);
      for (
        const junk of [
          "not json",
          "null",
          "[]",
          "42",
          JSON.stringify({ room_name: "gamelog", message: "fake line" }),
          JSON.stringify({ room_name: "", message: "broadcast to all" }),
          JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "no-such-room" } }),
          JSON.stringify({ room_name: "", controls: { type: "explode", value: "x" } }),
          JSON.stringify({ room_name: "", controls: { type: "command", value: 42 } }),
          JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "x".repeat(10_000) } }),
        ]
      ) attacker.send(junk);
      // The attacker's replay arrives only after the server went through all the junk before it.
      attacker.subscribe("server_status");
      await attacker.waitForMessage("server_status", () => true);
      p.ctx.bus.emit("server.log", { line: "real line" });
      await victim.waitForMessage("gamelog", (m) => m === "real line");
      assert.deepEqual(victim.messages.filter((m) => m.room_name === "gamelog").map((m) => m.message), [
        "real line",
      ]);
      assert.equal(attacker.closed, null, "the attacker's own connection is still up");
      assert.equal(p.ctx.hub.clientCount, 2);
    } finally {
      await attacker.close();
      await victim.close();
    }
  }),
);

Deno.test(
  "commands reach the registered handler with the sender",
  withPanel(async (p) => {
    const got: string[] = [];
    p.ctx.hub.onCommand((server, text, client, reply) => {
      got.push(`${client.username}@${server}: ${text}`);
      reply(`echo ${text}`);
    });
    const c = await p.login();
    const s = await TestSocket.connect(c);
    try {
      s.command("/time");
      s.command("   ");
      await s.waitForMessage("gamelog", (m) => m === "echo /time");
      assert.deepEqual(got, ["admin@1: /time"]);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "logging out closes that session's live connections",
  withPanel(async (p) => {
    const c = await p.login();
    const s = await TestSocket.connect(c);
    const otherSession = await TestSocket.connect(await p.login());
    try {
      await c.get("/api/logout");
      await s.waitFor((x) => x.closed !== null, "the socket to close");
      assert.equal(s.closed!.code, WS_CLOSE.signedOut);
      assert.equal(otherSession.closed, null);
    } finally {
      await s.close();
      await otherSession.close();
    }
  }),
);

Deno.test(
  "gamelog batches: the PWA's batching subscription gets lines joined, the old kind one per message",
  withPanel(async (p) => {
    p.ctx.hub.setReplay("gamelog", () => ["old 1", "old 2"]);
    const c = await p.login();
    const batched = await TestSocket.connect(c);
    const classic = await TestSocket.connect(c);
    try {
      batched.subscribe("gamelog", { batch: true });
      classic.subscribe("gamelog");
      await batched.waitFor(() => batched.messages.length === 1, "the batched replay");
      await classic.waitFor(() => classic.messages.length === 2, "the replay, line by line");
      assert.equal(batched.messages[0].message, "old 1\nold 2");
      for (let i = 0; i < 100; i++) p.ctx.bus.emit("server.log", { line: `line ${i}` });
      const lines = (s: TestSocket) =>
        s.messages.slice(s === batched ? 1 : 2).flatMap((m) => m.message.split("\n"));
      await batched.waitFor(() => lines(batched).length === 100, "the batched lines");
      await classic.waitFor(() => lines(classic).length === 100, "the lines");
      const want = Array.from({ length: 100 }, (_, i) => `line ${i}`);
      assert.deepEqual(lines(batched), want);
      assert.deepEqual(lines(classic), want);
      assert.ok(batched.messages.length - 1 < 100, "a burst is fewer messages than lines");
      assert.equal(classic.messages.length, 102, "the old UI's clients get one message per line");
      assert.ok(classic.messages.every((m) => !m.message.includes("\n")));
    } finally {
      await batched.close();
      await classic.close();
    }
  }),
);

Deno.test(
  "one sign-in holds at most a few live connections; more are closed with a reason, and others are not held",
  withPanel(async (p) => {
    const c = await p.login();
    const open: TestSocket[] = [];
    try {
      for (let i = 0; i < WS_PER_SIGN_IN; i++) open.push(await TestSocket.connect(c));
      const extra = await TestSocket.connect(c);
      await extra.waitFor((s) => s.closed !== null, "the extra connection to be closed");
      assert.deepEqual(extra.closed, { code: WS_TOO_MANY.code, reason: WS_TOO_MANY.reason });
      // Everyone else still gets in: another session of the same user, and a script's token.
      const other = await TestSocket.connect(await p.login());
      open.push(other);
      const token = await tokenClient(p, c, "viewer");
      const scripts: TestSocket[] = [];
      for (let i = 0; i < WS_PER_SIGN_IN; i++) scripts.push(await TestSocket.connect(token));
      open.push(...scripts);
      const extraScript = await TestSocket.connect(token);
      await extraScript.waitFor((s) => s.closed !== null, "the token's extra connection to be closed");
      assert.equal(extraScript.closed!.code, WS_TOO_MANY.code);
      other.subscribe("server_status");
      await other.waitFor(() => p.ctx.hub.roomSize("server_status") === 1, "the other session subscribed");
      // A tab closed makes room for the next.
      await open[0].close();
      await until("the closed tab to leave the hub", () => p.ctx.hub.clientCount === 2 * WS_PER_SIGN_IN);
      const next = await TestSocket.connect(c);
      open.push(next);
      next.subscribe("server_status");
      await next.waitFor(() => p.ctx.hub.roomSize("server_status") === 2, "the new tab subscribed");
      assert.equal(next.closed, null);
    } finally {
      for (const s of open) await s.close();
    }
  }),
);
