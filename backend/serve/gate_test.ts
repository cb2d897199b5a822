// The connection gate against floods: a real panel process under a low open-file limit, and a gate with
// short timeouts over real sockets.

import assert from "node:assert/strict";

import { Gate, type GateLimits } from "./gate.ts";
import { concat, writeAll } from "./bytes.ts";
import { createLogger } from "../log.ts";
import { startPanel } from "../testing/harness.ts";
import { TestSocket } from "../testing/ws.ts";
import { spawnWrappedPanel } from "../testing/wrapped.ts";
import { until } from "../testing/until.ts";

/** The panel as `npm start` runs it, under `ulimit -n <files>`. */
function spawnPanel(files: number, args: string[]) {
  return spawnWrappedPanel({ shell: `ulimit -n ${files}`, args });
}

async function openIdle(port: number, count: number): Promise<Deno.Conn[]> {
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < count; i++) {
    try {
      conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    } catch {
      // refused while the panel is out of files: the flood goes on
    }
  }
  return conns;
}

async function answers(url: string, path = "/api/user/status"): Promise<number | string> {
  try {
    const res = await fetch(url + path, { signal: AbortSignal.timeout(20_000) });
    await res.body?.cancel();
    return res.status;
  } catch (e) {
    return String(e) + " " + String((e as Error).cause);
  }
}

for (const [name, files, args] of [
  ["within its connection cap", 512, ["--max-connections", "100"]],
  // A cap above what the files allow: accept fails with EMFILE, which the panel must survive.
  ["with a cap above its open-file limit", 256, ["--max-connections", "2000", "--trust-proxy"]],
] as const) {
  Deno.test(`a flood of idle connections does not end the panel (${name}), and it answers after`, async () => {
    const panel = await spawnPanel(files, [...args]);
    let flood: Deno.Conn[] = [];
    try {
      flood = await openIdle(panel.port, 300);
      // Held past the moment the services are built (a second after start), which loads nothing then:
      // every module the panel loads while it serves was read before the gate let the flood in.
      await new Promise((r) => setTimeout(r, 1500));
      assert(panel.alive(), `the panel ended under the flood:\n${panel.output()}`);
      for (const c of flood) c.close();
      flood = [];
      // Answers once the flood ends (the wait is for slow machines, not a measured figure).
      let status: number | string = "";
      for (let i = 0; i < 60 && status !== 401; i++) {
        status = await answers(panel.url);
        if (status !== 401) await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(status, 401, panel.output());
      // A request for one of the route areas loaded last (http/areas.ts): its modules load and it answers.
      assert.equal(await answers(panel.url, "/api/saves/list"), 401, panel.output());
      assert(panel.alive());
    } finally {
      for (const c of flood) c.close();
      await panel.stop();
    }
  });
}

Deno.test("within the cap a browser still gets in while idle sockets hold every place", async () => {
  const panel = await spawnPanel(512, ["--max-connections", "100"]);
  const flood = await openIdle(panel.port, 300);
  try {
    assert.equal(await answers(panel.url), 401, panel.output());
    assert(panel.alive());
  } finally {
    for (const c of flood) c.close();
    await panel.stop();
  }
});

// A gate in front of a handler that can be held open, with short timeouts.
async function withGate(limits: Partial<GateLimits>, fn: (gate: Gate, hold: { release: () => void }) => Promise<void>) {
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const gate = new Gate({
    hostname: "127.0.0.1",
    port: 0,
    limits,
    log: createLogger({ quiet: true }),
    handler: async (req, info) => {
      const path = new URL(req.url).pathname;
      if (path === "/hold") await held;
      if (path === "/echo") return new Response(`${req.method} ${await req.text()}`);
      if (path === "/sha") {
        const data = new Uint8Array(await req.arrayBuffer());
        return new Response(`${data.length} ${await sha256(data)}`);
      }
      if (path === "/refuse") return new Response("too large", { status: 413 });
      if (path === "/nothing") {
        await req.arrayBuffer();
        return new Response(null, { status: 204 });
      }
      if (path === "/half") {
        const reader = req.body!.getReader();
        await reader.read();
        await reader.cancel();
        return new Response("half");
      }
      if (path === "/url") return new Response(`${req.url} ${await req.text().then((t) => t.length)}`);
      if (path === "/stream") {
        // No length: sent chunked.
        return new Response(new ReadableStream({
          start(c) {
            c.enqueue(enc.encode("part one, "));
            c.enqueue(enc.encode("part two"));
            c.close();
          },
        }));
      }
      return new Response(`${info.remoteAddr.hostname} ${info.webSocketGuarded}`);
    },
  });
  try {
    await fn(gate, { release: () => release() });
  } finally {
    release();
    await gate.shutdown();
  }
}

Deno.test("while the panel starts the gate holds its starting cap; the others get in once it is ready", async () => {
  await withGate({}, async (gate) => {
    const ready = Promise.withResolvers<void>();
    gate.holdUntil(ready.promise, 3);
    const conns = await Promise.all(Array.from({ length: 6 }, () => Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port })));
    try {
      await until("three connections held", () => gate.stats.open === 3);
      // The others wait in the kernel's queue: none is accepted, and these young ones are not shed.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(gate.stats.open, 3);
      ready.resolve();
      await until("all six held", () => gate.stats.open === 6);
    } finally {
      for (const c of conns) c.close();
    }
  });
});

/** Resolves when the server closes `conn` (read gives EOF or fails), reading away any answer. */
async function closedByServer(conn: Deno.Conn, within = 30_000): Promise<boolean> {
  const buf = new Uint8Array(4096);
  const timer = setTimeout(() => conn.close(), within);
  try {
    while ((await conn.read(buf)) !== null) { /* answer bytes */ }
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const enc = new TextEncoder();

async function sha256(data: Uint8Array<ArrayBuffer>): Promise<string> {
  return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", data)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `n` bytes that are not all alike. */
function bodyOf(n: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(n).map((_, i) => (i * 131 + (i >> 12)) % 251);
}

/** Reads one answer head, byte by byte (a 100 Continue is a head of its own). */
async function readHead(conn: Deno.Conn): Promise<string> {
  let text = "";
  const buf = new Uint8Array(1);
  while (!text.endsWith("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed after: ${text}`);
    text += String.fromCharCode(buf[0]);
  }
  return text;
}

Deno.test("idle, partial-header and kept-alive connections are closed; a long request is not", async () => {
  await withGate({ headerTimeoutMs: 300, idleTimeoutMs: 600 }, async (gate) => {
    const port = gate.addr.port;
    const idle = await Deno.connect({ hostname: "127.0.0.1", port });
    const partial = await Deno.connect({ hostname: "127.0.0.1", port });
    await partial.write(enc.encode("GET / HTTP/1.1\r\nHost: x\r\n"));
    const kept = await Deno.connect({ hostname: "127.0.0.1", port });
    await kept.write(enc.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    const [a, b, c] = await Promise.all([closedByServer(idle), closedByServer(partial), closedByServer(kept)]);
    assert(a && b && c, `closed: idle ${a}, partial ${b}, kept-alive ${c}`);
    assert(gate.stats.timedOut >= 3);
  });
  await withGate({ headerTimeoutMs: 300, idleTimeoutMs: 300 }, async (gate, hold) => {
    const long = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    await long.write(enc.encode("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n"));
    // Several sweeps pass while the handler works: the connection must stay.
    await new Promise((r) => setTimeout(r, 2000));
    hold.release();
    const buf = new Uint8Array(4096);
    const n = await long.read(buf);
    assert(n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("HTTP/1.1 200"));
    long.close();
  });
});

Deno.test("the handler sees the client's address, and the inner port refuses anyone but the gate", async () => {
  await withGate({}, async (gate) => {
    const res = await fetch(`http://127.0.0.1:${gate.addr.port}/`);
    assert.equal(await res.text(), "127.0.0.1 false");
  });
});

Deno.test("a WebSocket message over the limit closes that socket at its header; small ones pass", async () => {
  const panel = await startPanel();
  try {
    const client = await panel.login();
    const small = await TestSocket.connect(client);
    small.subscribe("server_status");
    await small.waitFor((s) => s.messages.some((m) => m.room_name === "server_status"), "the status");
    const big = await TestSocket.connect(client);
    big.send("x".repeat(1024 * 1024));
    await big.waitFor((s) => s.closed !== null, "the oversize socket to close", 20_000);
    // The other client is untouched.
    small.unsubscribe("server_status");
    small.subscribe("server_status");
    await small.waitFor((s) => s.messages.filter((m) => m.room_name === "server_status").length >= 2, "a second status");
    assert.equal(small.closed, null);
    await small.close();

    // A raw frame header declaring 64 MiB: cut before any payload is read.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(panel.url).port) });
    const key = btoa("0123456789abcdef");
    await conn.write(enc.encode(
      `GET /ws HTTP/1.1\r\nHost: ${new URL(panel.url).host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\n` +
        `Sec-WebSocket-Version: 13\r\nOrigin: ${panel.origin}\r\nCookie: ${client.cookie}\r\n\r\n`,
    ));
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf);
    assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 101/);
    const header = new Uint8Array([0x82, 0xff, 0, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4]);
    await conn.write(header);
    assert(await closedByServer(conn));
  } finally {
    await panel.close();
  }
});

Deno.test("a WebSocket upgrade after another request on the same connection is refused", async () => {
  const panel = await startPanel();
  try {
    const client = await panel.login();
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(panel.url).port) });
    const head = `Host: ${new URL(panel.url).host}\r\nOrigin: ${panel.origin}\r\nCookie: ${client.cookie}\r\n`;
    await conn.write(enc.encode(
      `GET /api/user/status HTTP/1.1\r\n${head}\r\n` +
        `GET /ws HTTP/1.1\r\n${head}Upgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${btoa("0123456789abcdef")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ));
    let text = "";
    const buf = new Uint8Array(8192);
    while (!/HTTP\/1\.1 \d+[^]*HTTP\/1\.1 (\d+)/.test(text)) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    assert.equal(/HTTP\/1\.1 \d+[^]*HTTP\/1\.1 (\d+)/.exec(text)?.[1], "400");
    conn.close();
  } finally {
    await panel.close();
  }
});

Deno.test("connections over the per-address limit wait their turn, and every one is answered", async () => {
  await withGate({ maxPerAddress: 4 }, async (gate) => {
    const one = async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
      await conn.write(enc.encode("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      let text = "";
      const buf = new Uint8Array(4096);
      try {
        for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) text += new TextDecoder().decode(buf.subarray(0, n));
      } catch (e) {
        text += String(e);
      }
      conn.close();
      return text.split("\r\n")[0];
    };
    const lines = await Promise.all(Array.from({ length: 40 }, one));
    assert.deepEqual(lines, Array(40).fill("HTTP/1.1 200 OK"));
  });
});

/** Sends one request on `conn` and reads one whole answer (Content-Length or chunked), keeping the connection. */
async function exchange(conn: Deno.Conn, request: string | Uint8Array[]): Promise<{ head: string; body: string }> {
  // Whole: a write of a few MiB may take only part of it.
  for (const part of typeof request === "string" ? [enc.encode(request)] : request) await writeAll(conn, part);
  const dec = new TextDecoder();
  let text = "";
  const buf = new Uint8Array(4096);
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end !== -1) {
      const head = text.slice(0, end);
      const rest = text.slice(end + 4);
      if (/^HTTP\/1\.1 100/.test(head)) {
        text = rest;
        continue;
      }
      const length = /content-length: (\d+)/i.exec(head);
      if (length && rest.length >= Number(length[1])) return { head, body: rest.slice(0, Number(length[1])) };
      if (/transfer-encoding: chunked/i.test(head) && rest.endsWith("0\r\n\r\n")) {
        let body = "";
        for (let at = 0;;) {
          const line = rest.indexOf("\r\n", at);
          const size = parseInt(rest.slice(at, line), 16);
          if (size === 0) return { head, body };
          body += rest.slice(line + 2, line + 2 + size);
          at = line + 2 + size + 2;
        }
      }
    }
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed after: ${text}`);
    text += dec.decode(buf.subarray(0, n));
  }
}

Deno.test("after its first answer a kept-alive connection is served directly: bodies, chunked answers, 100-continue", async () => {
  await withGate({}, async (gate) => {
    for (const first of ["GET", "POST", "CONTINUE", "STREAM"]) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
      try {
        // The first request, relayed (and its answer framed), in several shapes.
        if (first === "GET") assert.equal((await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).body, "127.0.0.1 false");
        if (first === "POST") {
          // The body arrives in two writes after the head.
          const r = await exchange(conn, [enc.encode("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello"), enc.encode(" world")]);
          assert.equal(r.body, "POST hello world");
        }
        if (first === "CONTINUE") {
          const head = "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n";
          assert.equal((await exchange(conn, [enc.encode(head), enc.encode("body")])).body, "POST body");
        }
        if (first === "STREAM") {
          const r = await exchange(conn, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
          assert.match(r.head, /transfer-encoding: chunked/i);
          assert.equal(r.body, "part one, part two");
        }
        // Then several more on the same connection, now answered by Deno's server with the gate still
        // naming the client.
        for (let i = 0; i < 3; i++) {
          assert.equal((await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).body, "127.0.0.1 false");
          assert.equal((await exchange(conn, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n${i}`)).body, `POST ${i}`);
          assert.equal((await exchange(conn, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")).body, "part one, part two");
        }
        assert.equal(gate.stats.open, 1);
        assert.equal(gate.stats.handedOver, ["GET", "POST", "CONTINUE", "STREAM"].indexOf(first) + 1);
      } finally {
        conn.close();
      }
      // The gate hears that the client left.
      for (let i = 0; i < 100 && gate.stats.open > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(gate.stats.open, 0, `after a first ${first}`);
    }
  });
});

Deno.test("a handed-over connection is still closed when idle, and waits while its request is worked on", async () => {
  await withGate({ headerTimeoutMs: 300, idleTimeoutMs: 600 }, async (gate, hold) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.equal(gate.stats.handedOver, 1);
    // A held request: the connection has work in hand, so it is not idle.
    await conn.write(enc.encode("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n"));
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(gate.stats.open, 1);
    hold.release();
    // Its answer comes, then the idle connection is closed.
    assert(await closedByServer(conn));
    assert.equal(gate.stats.open, 0);
  });
});

Deno.test("a first request with a large body is answered by the gate itself, whole, and the connection goes on", async () => {
  await withGate({}, async (gate) => {
    const body = bodyOf(3 * 1024 * 1024 + 17);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    try {
      // Part of the body comes with the head, the rest in pieces.
      const head = enc.encode(`POST /sha HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
      const r = await exchange(conn, [concat(head, body.subarray(0, 1000)), body.subarray(1000, 700_000), body.subarray(700_000)]);
      assert.equal(r.body, `${body.length} ${await sha256(body)}`);
      assert.match(r.head, /^HTTP\/1\.1 200 /);
      assert.match(r.head, /content-length: \d+/i);
      assert.equal(gate.stats.answeredHere, 1);
      // Then Deno's server answers the same connection.
      assert.equal((await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).body, "127.0.0.1 false");
      assert.equal((await exchange(conn, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")).body, "POST ok");
      assert.equal(gate.stats.handedOver, 1);
    } finally {
      conn.close();
    }
    // A 204 answer: no length, no body, and the connection goes on.
    const other = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    try {
      await writeAll(other, concat(enc.encode(`POST /nothing HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body));
      const head = await readHead(other);
      assert.match(head, /^HTTP\/1\.1 204 /);
      assert.doesNotMatch(head, /content-length|transfer-encoding/i);
      assert.equal((await exchange(other, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).body, "127.0.0.1 false");
    } finally {
      other.close();
    }
  });
});

Deno.test("a large first request: 100 Continue only once the handler reads, an early refusal closes, a half-read body is read past", async () => {
  await withGate({}, async (gate) => {
    const body = bodyOf(2 * 1024 * 1024);
    // Expect: 100-continue, read by the handler: the client is told to go on, then answered.
    let conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    try {
      await conn.write(enc.encode(`POST /sha HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`));
      assert.match(await readHead(conn), /^HTTP\/1\.1 100 Continue\r\n\r\n$/);
      assert.equal((await exchange(conn, [body])).body, `${body.length} ${await sha256(body)}`);
      assert.equal((await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).body, "127.0.0.1 false");
    } finally {
      conn.close();
    }
    // Refused before reading: no 100 Continue, the answer says the connection closes, and it does.
    conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    try {
      await conn.write(enc.encode(`POST /refuse HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`));
      const head = await readHead(conn);
      assert.match(head, /^HTTP\/1\.1 413 /);
      assert.match(head, /connection: close/i);
      assert(await closedByServer(conn, 10_000));
    } finally {
      conn.close();
    }
    // Answered after reading part of the body: the rest is read and dropped, and the next request works.
    conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    try {
      const head = enc.encode(`POST /half HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
      const sending = (async () => {
        await conn.write(head);
        for (let at = 0; at < body.length; at += 256 * 1024) await writeAll(conn, body.subarray(at, at + 256 * 1024));
      })();
      const r = await exchange(conn, []);
      assert.equal(r.body, "half");
      await sending;
      assert.equal((await exchange(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).body, "127.0.0.1 false");
    } finally {
      conn.close();
    }
    assert.equal(gate.stats.answeredHere, 3);
  });
});

Deno.test("a large first request cut mid-body fails in the handler, not the gate; odd heads go to Deno's parser", async () => {
  await withGate({}, async (gate) => {
    const body = bodyOf(2 * 1024 * 1024);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    await conn.write(enc.encode(`POST /sha HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`));
    await writeAll(conn, body.subarray(0, 300_000));
    conn.close();
    for (let i = 0; i < 200 && gate.stats.open > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(gate.stats.open, 0);
    // A Host that is not a plain host (it would change the URL's path) and a folded header: relayed.
    for (const extra of ["Host: a/b", "Host: x\r\nX-Folded: a\r\n b"]) {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
      try {
        await c.write(enc.encode(`POST /url HTTP/1.1\r\n${extra}\r\nContent-Length: ${body.length}\r\n\r\n`));
        await writeAll(c, body).catch(() => {});
        await closedByServer(c, 10_000);
      } finally {
        c.close();
      }
    }
    assert.equal(gate.stats.answeredHere, 1);
    // The gate still answers.
    assert.equal(await answersPlain(gate.addr.port), "127.0.0.1 false");
  });
});

async function answersPlain(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`);
  return await res.text();
}

Deno.test("a large first request whose client stops sending is closed when idle, while read or after its answer", async () => {
  await withGate({ headerTimeoutMs: 300, idleTimeoutMs: 600 }, async (gate) => {
    const length = 2 * 1024 * 1024;
    // The handler waits for the rest of the body, which never comes.
    const stalled = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    await stalled.write(enc.encode(`POST /sha HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`));
    await writeAll(stalled, bodyOf(100_000));
    // Refused at once; the client sends nothing after the head: answered, then closed as idle.
    const refused = await Deno.connect({ hostname: "127.0.0.1", port: gate.addr.port });
    await refused.write(enc.encode(`POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`));
    assert.match(await readHead(refused), /^HTTP\/1\.1 413 /);
    assert(await closedByServer(stalled, 10_000), "the stalled upload was not closed");
    assert(await closedByServer(refused, 10_000), "the refused upload was not closed");
    assert.equal(gate.stats.answeredHere, 2);
    assert.ok(gate.stats.timedOut >= 2);
    stalled.close();
    refused.close();
  });
});
