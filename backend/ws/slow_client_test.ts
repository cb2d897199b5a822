// A client that stops reading must not hold up anyone else, nor make the panel buffer without end: it is
// dropped once its unsent data passes the limit, while the others keep receiving.

import assert from "node:assert/strict";
import { type TestPanel, withPanel } from "../../tests/support/harness.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import { WS_MAX_BUFFERED } from "./hub.ts";

/** Completes a WebSocket handshake over raw TCP, subscribes to `room`, and then never reads again. */
async function stalledClient(
  url: string,
  cookie: string,
  room: string,
  batch = false,
): Promise<Deno.TcpConn> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const request = [
    "GET /ws HTTP/1.1",
    `Host: ${hostname}:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${key}`,
    "Sec-WebSocket-Version: 13",
    `Origin: ${url}`,
    `Cookie: ${cookie}`,
    "",
    "",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(request));
  // Read just the handshake answer.
  let head = "";
  const buf = new Uint8Array(1);
  while (!head.endsWith("\r\n\r\n")) {
    if ((await conn.read(buf)) === null) throw new Error(`closed during handshake: ${head}`);
    head += String.fromCharCode(buf[0]);
  }
  assert.match(head, /^HTTP\/1\.1 101/);
  // One masked text frame (clients must mask), then silence.
  const payload = new TextEncoder().encode(
    JSON.stringify({
      room_name: "",
      controls: { type: "subscribe", value: room, ...(batch ? { batch: true } : {}) },
    }),
  );
  const mask = crypto.getRandomValues(new Uint8Array(4));
  const frame = new Uint8Array(2 + 4 + payload.length);
  frame[0] = 0x81;
  frame[1] = 0x80 | payload.length;
  frame.set(mask, 2);
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i] ^ mask[i % 4];
  await conn.write(frame);
  conn.setNoDelay(true);
  return conn;
}

/**
 * Game lines of 16 KiB, in bursts of 64 with `pause` ms between them (as a game printing would), until the
 * panel has dropped the stalled client. How much the kernel holds before the panel's own buffer fills depends
 * on the machine (the loopback socket buffers, autotuned to several MiB), so the flood goes on
 * until the drop, up to 32 times the limit: a panel that never drops fails the test. Returns the lines sent.
 */
async function floodUntilDropped(p: TestPanel, pause: number): Promise<number> {
  const line = "x".repeat(16 * 1024);
  const cap = Math.ceil((WS_MAX_BUFFERED * 32) / line.length);
  let i = 0;
  while (i < cap && p.ctx.hub.clientCount > 1) {
    p.ctx.bus.emit("server.log", { line: `${i} ${line}` });
    i++;
    if (i % 64 === 0) await new Promise((r) => setTimeout(r, pause));
  }
  return i;
}

Deno.test(
  "a client that never reads is dropped; the others keep receiving",
  withPanel(async (p) => {
    const c = await p.login();
    const good = await TestSocket.connect(c);
    const slow = await stalledClient(p.url, c.cookie!, "gamelog");
    try {
      good.subscribe("gamelog");
      await good.waitFor(() => p.ctx.hub.roomSize("gamelog") === 2, "both clients in the room");

      // 1 MiB every 20 ms: a reading client on a busy machine (it shares the panel's process here) keeps
      // up; bursts with no pause at all dropped the reader too once (its buffer is bounded the same way).
      const lines = await floodUntilDropped(p, 20);
      p.ctx.bus.emit("server.log", { line: "last" });
      await good.waitForMessage("gamelog", (m) => m === "last", 60_000);
      assert.equal(p.ctx.hub.clientCount, 1, "the stalled client was dropped");
      assert.equal(good.closed, null);
      const received = good.messages.filter((m) => m.room_name === "gamelog").length;
      assert.equal(received, lines + 1, "the reading client got every line");
    } finally {
      slow.close();
      await good.close();
    }
  }),
);

Deno.test(
  "batched: a client that never reads is dropped; a batching reader gets every line, in order",
  withPanel(async (p) => {
    const c = await p.login();
    const good = await TestSocket.connect(c);
    const slow = await stalledClient(p.url, c.cookie!, "gamelog", true);
    try {
      good.subscribe("gamelog", { batch: true });
      await good.waitFor(() => p.ctx.hub.roomSize("gamelog") === 2, "both clients in the room");
      const lines = await floodUntilDropped(p, 20);
      p.ctx.bus.emit("server.log", { line: "last" });
      const got = () =>
        good.messages.filter((m) => m.room_name === "gamelog").flatMap((m) => m.message.split("\n"));
      await good.waitFor(() => got().at(-1) === "last", "the last line", 60_000);
      assert.equal(p.ctx.hub.clientCount, 1, "the stalled client was dropped");
      assert.equal(good.closed, null);
      assert.deepEqual(got().map((l) => l.split(" ")[0]), [
        ...Array.from({ length: lines }, (_, i) => String(i)),
        "last",
      ]);
      assert.ok(good.messages.length < lines, "lines travel in batches");
    } finally {
      slow.close();
      await good.close();
    }
  }),
);
