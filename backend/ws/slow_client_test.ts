// A client that stops reading must not hold up anyone else, nor make the panel buffer without end: it is
// dropped once its unsent data passes the limit, while the others keep receiving.

import assert from "node:assert/strict";
import { withPanel } from "../testing/harness.ts";
import { TestSocket } from "../testing/ws.ts";
import { WS_MAX_BUFFERED } from "./hub.ts";

/** Completes a WebSocket handshake over raw TCP, subscribes to `room`, and then never reads again. */
async function stalledClient(url: string, cookie: string, room: string, batch = false): Promise<Deno.TcpConn> {
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
  const payload = new TextEncoder().encode(JSON.stringify({ room_name: "", controls: { type: "subscribe", value: room, ...(batch ? { batch: true } : {}) } }));
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

Deno.test("a client that never reads is dropped; the others keep receiving", withPanel(async (p) => {
  const c = await p.login();
  const good = await TestSocket.connect(c);
  const slow = await stalledClient(p.url, c.cookie!, "gamelog");
  try {
    good.subscribe("gamelog");
    await good.waitFor(() => p.ctx.hub.roomSize("gamelog") === 2, "both clients in the room");

    // Far more than the limit plus what the kernel's socket buffers can hold.
    const line = "x".repeat(16 * 1024);
    const lines = Math.ceil((WS_MAX_BUFFERED * 4) / line.length);
    for (let i = 0; i < lines; i++) {
      p.ctx.bus.emit("server.log", { line: `${i} ${line}` });
      // Let the sockets work between bursts, as a game printing lines would.
      if (i % 64 === 0) await new Promise((r) => setTimeout(r, 0));
    }
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
}));

Deno.test("batched: a client that never reads is dropped; a batching reader gets every line, in order", withPanel(async (p) => {
  const c = await p.login();
  const good = await TestSocket.connect(c);
  const slow = await stalledClient(p.url, c.cookie!, "gamelog", true);
  try {
    good.subscribe("gamelog", { batch: true });
    await good.waitFor(() => p.ctx.hub.roomSize("gamelog") === 2, "both clients in the room");
    const line = "x".repeat(16 * 1024);
    const lines = Math.ceil((WS_MAX_BUFFERED * 4) / line.length);
    for (let i = 0; i < lines; i++) {
      p.ctx.bus.emit("server.log", { line: `${i} ${line}` });
      if (i % 64 === 0) await new Promise((r) => setTimeout(r, 20));
    }
    p.ctx.bus.emit("server.log", { line: "last" });
    const got = () => good.messages.filter((m) => m.room_name === "gamelog").flatMap((m) => m.message.split("\n"));
    await good.waitFor(() => got().at(-1) === "last", "the last line", 60_000);
    assert.equal(p.ctx.hub.clientCount, 1, "the stalled client was dropped");
    assert.equal(good.closed, null);
    assert.deepEqual(got().map((l) => l.split(" ")[0]), [...Array.from({ length: lines }, (_, i) => String(i)), "last"]);
    assert.ok(good.messages.length < lines, "lines travel in batches");
  } finally {
    slow.close();
    await good.close();
  }
}));
