// The RCON client against a hand-written server that checks the bytes on the wire and answers the way
// Source servers may: an empty response value before the auth response, replies split over full packets.

import assert from "node:assert/strict";
import { FULL_BODY, RconClient, RconError } from "./rcon.ts";

function packet(id: number, type: number, body: Uint8Array | string): Uint8Array {
  const b = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const out = new Uint8Array(14 + b.length);
  const v = new DataView(out.buffer);
  v.setInt32(0, 10 + b.length, true);
  v.setInt32(4, id, true);
  v.setInt32(8, type, true);
  out.set(b, 12);
  return out;
}

async function readPacket(
  conn: Deno.Conn,
): Promise<{ id: number; type: number; body: string; raw: Uint8Array }> {
  const head = new Uint8Array(4);
  await readFull(conn, head);
  const size = new DataView(head.buffer).getInt32(0, true);
  const rest = new Uint8Array(size);
  await readFull(conn, rest);
  const v = new DataView(rest.buffer);
  assert.deepEqual([...rest.subarray(size - 2)], [0, 0], "body and empty string both NUL-terminated");
  const raw = new Uint8Array(4 + size);
  raw.set(head);
  raw.set(rest, 4);
  return {
    id: v.getInt32(0, true),
    type: v.getInt32(4, true),
    body: new TextDecoder().decode(rest.subarray(8, size - 2)),
    raw,
  };
}

async function readFull(conn: Deno.Conn, buf: Uint8Array): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const n = await conn.read(buf.subarray(off));
    if (n === null) throw new Error("closed");
    off += n;
  }
}

Deno.test("auth, ids from 1, replies over several full packets, UTF-8 both ways", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const long = "é".repeat(FULL_BODY); // 2 bytes each: exactly two full packets
  const server = (async () => {
    const conn = await listener.accept();
    const auth = await readPacket(conn);
    assert.equal(auth.type, 3);
    assert.equal(auth.id, 1);
    assert.equal(auth.body, "pässword");
    assert.equal(new DataView(auth.raw.buffer).getInt32(0, true), auth.raw.length - 4);
    await conn.write(packet(auth.id, 0, "")); // what some Source servers send first
    await conn.write(packet(auth.id, 2, ""));
    const cmd = await readPacket(conn);
    assert.deepEqual([cmd.id, cmd.type, cmd.body], [2, 2, "/say ünïcode"]);
    const bytes = new TextEncoder().encode(long);
    await conn.write(packet(cmd.id, 0, bytes.subarray(0, FULL_BODY)));
    await conn.write(packet(cmd.id, 0, bytes.subarray(FULL_BODY)));
    const next = await readPacket(conn);
    await conn.write(packet(next.id, 0, "short"));
    conn.close();
  })();
  const client = await RconClient.connect({
    host: "127.0.0.1",
    port: (listener.addr as Deno.NetAddr).port,
    password: "pässword",
  });
  assert.equal(await client.exec("/say ünïcode"), long);
  assert.equal(await client.exec("/time"), "short");
  await server;
  await client.done;
  assert.equal(client.closed, true);
  await assert.rejects(client.exec("/time"), RconError);
  listener.close();
});

Deno.test("a refused password and a server that is not there are RconErrors", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const server = (async () => {
    const conn = await listener.accept();
    const auth = await readPacket(conn);
    await conn.write(packet(-1, 2, ""));
    void auth;
    conn.close();
  })();
  await assert.rejects(
    RconClient.connect({ host: "127.0.0.1", port, password: "x" }),
    /refused the RCON password/,
  );
  await server;
  listener.close();
  // A port nothing listens on: the one just closed. Other test files run alongside and may be given that
  // port for a listener of their own in the meantime; then the connection reaches them and breaks, and
  // another closed port is tried.
  let closedPort = port;
  for (let attempt = 0;; attempt++) {
    const error = await RconClient.connect({ host: "127.0.0.1", port: closedPort, password: "x" }).then(
      () => null,
      (e) => e,
    );
    assert.ok(error instanceof RconError, String(error));
    if (attempt < 5 && /connection broke/.test(error.message)) {
      const other = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      closedPort = (other.addr as Deno.NetAddr).port;
      other.close();
      continue;
    }
    assert.match(error.message, /Cannot reach/);
    break;
  }
});

Deno.test("a command that gets no answer times out and closes the connection", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let serverConn: Deno.Conn | null = null;
  const server = (async () => {
    const conn = await listener.accept();
    serverConn = conn;
    const auth = await readPacket(conn);
    await conn.write(packet(auth.id, 2, ""));
    await readPacket(conn); // and never answer
  })();
  const client = await RconClient.connect({
    host: "127.0.0.1",
    port: (listener.addr as Deno.NetAddr).port,
    password: "x",
  });
  await assert.rejects(client.exec("/players", 200), RconError);
  assert.equal(client.closed, true);
  await server;
  (serverConn as Deno.Conn | null)?.close();
  listener.close();
});
