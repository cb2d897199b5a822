// serveWithCertificates on its own: a real Deno.serve over TLS with certificates of a local CA, a WebSocket
// held open across a new certificate, new connections looked at by their handshake (the serial they get).

import assert from "node:assert/strict";
import { EventBus } from "../lib/events.ts";
import { createLogger } from "../lib/log.ts";
import { createCa, issueLeaf } from "./localca.ts";
import { readCertificate } from "./certs.ts";
import type { ServedCertificate } from "./manager.ts";
import { type CertificateServer, serveWithCertificates } from "./listener.ts";
import { handshake } from "../../tests/support/tls.ts";
import { until } from "../../tests/support/until.ts";

const NAMES = ["localhost", "127.0.0.1"];

async function certificates() {
  const now = Date.now();
  const ca = await createCa("", now);
  const pair = async (): Promise<ServedCertificate & { serial: string }> => {
    const p = await issueLeaf(ca, NAMES, now);
    const r = readCertificate(p.cert);
    return { ...p, notBefore: r.notBefore, notAfter: r.notAfter, serial: r.facts.serial.toUpperCase() };
  };
  return { ca: ca.cert, a: await pair(), b: await pair() };
}

interface Running {
  server: CertificateServer;
  bus: EventBus;
  sockets: Set<WebSocket>;
  client: Deno.HttpClient;
  url: string;
  /** The clock the listener reads (tests move it). */
  clock: { now: number };
  close(): Promise<void>;
}

/** The listener with a small app: "ok" for any request, an echoing WebSocket at /ws. */
function start(first: ServedCertificate | null, ca: string): Running {
  const bus = new EventBus();
  const sockets = new Set<WebSocket>();
  const clock = { now: Date.now() };
  let current = first;
  bus.on("https.certificate", (c) => void (current = c));
  const server = serveWithCertificates({
    handler: (req) => {
      if (new URL(req.url).pathname !== "/ws") return new Response("ok");
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onopen = () => sockets.add(socket);
      socket.onclose = () => sockets.delete(socket);
      socket.onmessage = (e) => socket.send(`echo ${e.data}`);
      return response;
    },
    certificates: { current: () => current },
    bus,
    port: 0,
    hostname: "127.0.0.1",
    openWebSockets: () => sockets.size,
    log: createLogger({ quiet: true }),
    checkEveryMs: 50,
    now: () => clock.now,
  });
  const client = Deno.createHttpClient({ caCerts: [ca] });
  return {
    server,
    bus,
    sockets,
    client,
    clock,
    url: `localhost:${server.addr.port}`,
    close: async () => {
      client.close();
      await server.shutdown();
    },
  };
}

async function openSocket(
  r: Running,
): Promise<{ ws: WebSocket; ask(text: string): Promise<string>; closed: Promise<number> }> {
  const ws = new WebSocket(`wss://${r.url}/ws`, { client: r.client });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  await until("the server to count the socket", () => r.sockets.size === 1);
  const ask = (text: string) =>
    new Promise<string>((resolve) => {
      ws.onmessage = (e) => resolve(String(e.data));
      ws.send(text);
    });
  return { ws, ask, closed };
}

Deno.test("a WebSocket open across a new certificate keeps working; new connections get the new one once it closes", async () => {
  const { ca, a, b } = await certificates();
  const r = start(a, ca);
  try {
    assert.equal((await handshake(r.server.addr.port, ca)).serial, a.serial);
    const socket = await openSocket(r);
    assert.equal(await socket.ask("before"), "echo before");

    r.bus.emit("https.certificate", b);
    assert.ok(r.server.waiting(), "the new certificate waits while the socket is open");
    // Several of the listener's looks for a quiet moment pass: the socket stays, new connections get the old one.
    const looked = r.server.swaps;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(r.server.swaps, looked);
    assert.equal(await socket.ask("during"), "echo during");
    assert.equal((await handshake(r.server.addr.port, ca)).serial, a.serial);
    assert.equal(await (await fetch(`https://${r.url}/`, { client: r.client })).text(), "ok");

    socket.ws.close();
    assert.equal(await socket.closed, 1005);
    await until("the new certificate to be served", () => r.server.swaps === 1);
    assert.equal((await handshake(r.server.addr.port, ca)).serial, b.serial);
    assert.equal(await (await fetch(`https://${r.url}/`, { client: r.client })).text(), "ok");
    assert.equal(r.server.served()?.cert, b.cert);
  } finally {
    await r.close();
  }
});

Deno.test("at its deadline the new certificate is served with a WebSocket still open, which is closed with 1001", async () => {
  const { ca, a, b } = await certificates();
  const r = start(a, ca);
  try {
    const socket = await openSocket(r);
    r.bus.emit("https.certificate", b);
    assert.ok(r.server.waiting());
    // A day before the old certificate ends (a tenth of its remaining 397 days is more than that).
    r.clock.now = a.notAfter - 86_400_000 - 1000;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(r.server.waiting(), "not before the deadline");
    r.clock.now = a.notAfter - 86_400_000 + 1;
    assert.equal(await socket.closed, 1001);
    await until("the new certificate to be served", () => r.server.swaps === 1);
    assert.equal((await handshake(r.server.addr.port, ca)).serial, b.serial);
  } finally {
    await r.close();
  }
});

Deno.test("HTTPS with HTTP/2 offered; plain HTTP until the first certificate, HTTPS on the same port at once after", async () => {
  const { ca, a } = await certificates();
  const r = start(null, ca);
  try {
    assert.equal(await (await fetch(`http://${r.url}/`)).text(), "ok");
    // A browser's socket is open: from plain HTTP the move does not wait for it.
    const ws = new WebSocket(`ws://${r.url}/ws`);
    await until("the socket to open", () => r.sockets.size === 1);
    r.bus.emit("https.certificate", a);
    await until("HTTPS on the port", () => r.server.swaps === 1);
    const shook = await handshake(r.server.addr.port, ca);
    assert.equal(shook.serial, a.serial);
    assert.equal(shook.alpn, "h2");
    assert.equal(await (await fetch(`https://${r.url}/`, { client: r.client })).text(), "ok");
    ws.close();
  } finally {
    await r.close();
  }
});

Deno.test("a certificate whose key does not belong to it is not served: the current one stays", async () => {
  const { ca, a, b } = await certificates();
  const r = start(a, ca);
  try {
    r.bus.emit("https.certificate", { ...b, key: a.key });
    assert.ok(!r.server.waiting());
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(r.server.swaps, 0);
    assert.equal((await handshake(r.server.addr.port, ca)).serial, a.serial);
  } finally {
    await r.close();
  }
});
