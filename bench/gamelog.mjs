// Game log fan-out and status pushes over /ws, on the Factorio simulator:
//  - delay from the game printing a line to each of 50 /ws clients receiving it (p50/p99/max), at a
//    steady 200 lines/s, then lines per second delivered to the 50 clients for an unthrottled burst;
//  - delay from the game process dying (SIGKILL from outside) to the "stopped" push reaching the clients,
//    for the panel's own child and for a game re-attached after a panel restart.
//   node bench/gamelog.mjs [clients]
// It runs itself under Deno (the simulator's installer and the WebSocket client with a cookie need it).

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DENO, PANEL_PERMISSIONS, percentile, ROOT } from "./lib.mjs";

if (typeof Deno === "undefined") {
  const r = spawnSync(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ], { cwd: ROOT, stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const { join } = await import("node:path");
const { installFakeFactorio, createFakeSave } = await import("../tests/fake-factorio/install.ts");
const { freeUdpPort } = await import("../tests/fake-factorio/sim.ts");
const { startPanel, stopPanel } = await import("./lib.mjs");

const CLIENTS = Number(Deno.args[0] ?? 50);
const STEADY_LINES = 2000;
const STEADY_RATE = 200;
const BURST_LINES = 20000;
const KILLS = 5;

const factorio = installFakeFactorio(mkdtempSync(join(tmpdir(), "bench-factorio-")), "2.0");
await createFakeSave(factorio, "bench.zip");
const dataDir = mkdtempSync(join(tmpdir(), "bench-panel-"));
let panel = await startPanel({ dataDir, args: ["--factorio-dir", factorio.dir] });

async function login(url) {
  const r = await fetch(`${url}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: url },
    body: JSON.stringify({ username: "admin", password: "bench-password" }),
  });
  if (r.status !== 200) throw new Error(`login: ${r.status}`);
  await r.body?.cancel();
  return r.headers.getSetCookie().find((c) => c.startsWith("authentication=")).split(";")[0];
}

async function api(url, cookie, method, path, body) {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { Cookie: cookie, Origin: url, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/**
 * `n` clients, as `n` browser tabs of several people: one sign-in holds at most WS_PER_SIGN_IN
 * connections (shared/ws.ts), so each group of that many signs in on its own.
 */
async function connectMany(url, n) {
  const { WS_PER_SIGN_IN } = await import("../shared/ws.ts");
  const cookies = [];
  for (let i = 0; i < Math.ceil(n / WS_PER_SIGN_IN); i++) cookies.push(await login(url));
  return await Promise.all(
    Array.from({ length: n }, (_, i) => connect(url, cookies[Math.floor(i / WS_PER_SIGN_IN)])),
  );
}

/** A /ws client that records, per bench line, the delay since the game printed it. */
function connect(url, cookie) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, "ws") + "/ws", {
      headers: { Cookie: cookie, Origin: url },
    });
    const client = { ws, delays: [], lines: 0, firstAt: 0, lastAt: 0, statuses: [], waiters: [] };
    ws.onmessage = (e) => {
      const now = Date.now();
      const raw = e.data;
      if (raw.startsWith('{"room_name":"gamelog"')) {
        // Subscribed with "batch", as the PWA: several lines per message, joined by "\n". The 50 clients
        // share this process and the machine's two cores with the panel, where each browser would have a
        // CPU of its own: so a message is not parsed here, its bench lines are only counted in the raw
        // text, and the time of its first (oldest) bench line counts for every line in it, an upper bound
        // of each line's delay.
        const marker = " [CHAT] bench: ";
        let at = raw.indexOf(marker);
        if (at !== -1) {
          const first = /^\d+ (\d+)/.exec(raw.slice(at + marker.length, at + marker.length + 40));
          const worst = now - Number(first[1]);
          if (client.lines === 0) client.firstAt = performance.now();
          for (; at !== -1; at = raw.indexOf(marker, at + marker.length)) {
            client.lines++;
            client.delays.push(worst);
          }
          client.lastAt = performance.now();
        }
      } else {
        const msg = JSON.parse(raw);
        if (msg.room_name === "server_status") {
          client.statuses.push({ status: JSON.parse(msg.message).status, at: now });
        }
      }
      for (const w of client.waiters.splice(0)) w();
    };
    ws.onopen = () => {
      ws.send(
        JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "gamelog", batch: true } }),
      );
      ws.send(JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "server_status" } }));
      resolve(client);
    };
    ws.onerror = () => reject(new Error("websocket failed"));
  });
}

async function until(clients, predicate, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (const c of clients) {
    while (!predicate(c)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => {
        const t = setTimeout(r, 200);
        c.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }
}

function reset(clients) {
  for (const c of clients) Object.assign(c, { delays: [], lines: 0, firstAt: 0, lastAt: 0, statuses: [] });
}

async function startGame(cookie) {
  await api(panel.url, cookie, "POST", "/api/server/start", {
    bindip: "127.0.0.1",
    port: await freeUdpPort(),
    savefile: "Load Latest",
  });
}

function gamePid() {
  return JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid;
}

/** Kills the game from outside and returns, per client, the delay until the "stopped" push. */
async function killDelays(clients) {
  reset(clients);
  const at = Date.now();
  Deno.kill(gamePid(), "SIGKILL");
  await until(clients, (c) => c.statuses.some((s) => s.status === "stopped"), "the stopped push", 30_000);
  return clients.map((c) => c.statuses.find((s) => s.status === "stopped").at - at);
}

const ms = (v) => `${v.toFixed(0)} ms`;
let clients = [];
try {
  let cookie = await login(panel.url);
  await startGame(cookie);
  clients = await connectMany(panel.url, CLIENTS);
  await until(clients, (c) => c.statuses.length > 0, "the status replay");

  // Steady lines: delay from print to delivery.
  reset(clients);
  await api(panel.url, cookie, "GET", "/api/server/status");
  clients[0].ws.send(
    JSON.stringify({
      room_name: "",
      controls: { type: "command", value: `/fake-flood ${STEADY_LINES} ${STEADY_RATE}` },
    }),
  );
  await until(clients, (c) => c.lines >= STEADY_LINES, "the steady lines");
  const delays = clients.flatMap((c) => c.delays);
  console.log(
    `gamelog delay, game prints -> ${CLIENTS} /ws clients, ${STEADY_LINES} lines at ${STEADY_RATE}/s: ` +
      `p50 ${ms(percentile(delays, 50))}, p99 ${ms(percentile(delays, 99))}, max ${ms(Math.max(...delays))}`,
  );

  // A burst as fast as the game prints: delivered lines per second, to all clients, then to one client
  // alone (the reference: what the panel and the game manage without any fan-out).
  const burst = async (group) => {
    reset(group);
    const burstStart = performance.now();
    group[0].ws.send(
      JSON.stringify({ room_name: "", controls: { type: "command", value: `/fake-flood ${BURST_LINES} 0` } }),
    );
    await until(group, (c) => c.lines >= BURST_LINES, "the burst");
    const seconds = (Math.max(...group.map((c) => c.lastAt)) - burstStart) / 1000;
    return { rate: BURST_LINES / seconds, p99: percentile(group.flatMap((c) => c.delays), 99) };
  };
  const all = await burst(clients);
  for (const c of clients.slice(1)) {
    c.ws.send(JSON.stringify({ room_name: "", controls: { type: "unsubscribe", value: "gamelog" } }));
  }
  await api(panel.url, cookie, "GET", "/api/server/status");
  const one = await burst(clients.slice(0, 1));
  for (const c of clients.slice(1)) {
    c.ws.send(
      JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "gamelog", batch: true } }),
    );
  }
  console.log(
    `gamelog fan-out, ${BURST_LINES} lines as fast as the game prints them, ${CLIENTS} clients: ` +
      `${all.rate.toFixed(0)} lines/s to every client (${
        (all.rate * CLIENTS).toFixed(0)
      } deliveries/s), delay p99 ${ms(all.p99)}; ` +
      `reference, 1 client in the same run: ${one.rate.toFixed(0)} lines/s, p99 ${ms(one.p99)}; ratio ${
        (all.rate / one.rate).toFixed(2)
      } ` +
      `(target: >= 10000 lines/s each, p99 < 500 ms)`,
  );

  // Status pushes: the game dies, the clients hear "stopped".
  const own = [];
  for (let i = 0; i < KILLS; i++) {
    own.push(...await killDelays(clients));
    await startGame(cookie);
  }
  console.log(
    `status push after the game dies (panel's own child), ${KILLS} kills x ${CLIENTS} clients: ` +
      `p50 ${ms(percentile(own, 50))}, p99 ${ms(percentile(own, 99))}, max ${ms(Math.max(...own))}`,
  );

  // The same after a panel restart: the game is re-attached and watched by polling.
  const reattached = [];
  for (let i = 0; i < 3; i++) {
    for (const c of clients) c.ws.close();
    await stopPanel({ ...panel, ownDir: false });
    panel = await startPanel({ dataDir, args: ["--factorio-dir", factorio.dir] });
    cookie = await login(panel.url);
    clients = await connectMany(panel.url, CLIENTS);
    await until(clients, (c) => c.statuses.some((s) => s.status === "running"), "the re-attached status");
    reattached.push(...await killDelays(clients));
    await startGame(cookie);
  }
  console.log(
    `status push after a re-attached game dies, 3 kills x ${CLIENTS} clients: ` +
      `p50 ${ms(percentile(reattached, 50))}, p99 ${ms(percentile(reattached, 99))}, max ${
        ms(Math.max(...reattached))
      }`,
  );
} finally {
  for (const c of clients) c.ws.close();
  try {
    Deno.kill(gamePid(), "SIGKILL");
  } catch {
    // not running
  }
  await stopPanel({ ...panel, ownDir: false });
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(factorio.dir, { recursive: true, force: true });
}
