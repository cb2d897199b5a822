// Hostile load on a real panel, started as `npm start` starts it (deno run with the panel's permissions)
// under `ulimit -n 1024` (systemd's default soft limit for services). Everything goes to 127.0.0.1 only.
//   1. a flood of idle TCP connections (1100, more than the open-file limit), held 20 s;
//   2. 300 parallel sign-ins with a wrong password, while a signed-in browser keeps asking for its status.
// Prints: connections held, whether the panel answered during and after, attempts evaluated out of 300,
// and the panel's peak memory beside its idle memory (the reference, same run) as a ratio.
//   node bench/hostile.mjs [floodConnections] [holdSeconds]

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DENO, panelDenoArgs, ROOT } from "../scripts/launcher.mjs";

const FLOOD = Number(process.argv[2] ?? 1100);
const HOLD_S = Number(process.argv[3] ?? 20);
const PASSWORD = "bench-hostile-password";

function startPanel() {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-hostile-"));
  const child = spawn("sh", [
    "-c", 'ulimit -n 1024; exec "$@"', "sh",
    DENO, ...panelDenoArgs(["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir]),
  ], { cwd: ROOT, env: { ...process.env, PANEL_ADMIN_PASSWORD: PASSWORD, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let exited = null;
  child.on("exit", (code, signal) => (exited = { code, signal }));
  return new Promise((ok, fail) => {
    const onData = (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok({ url: m[1], port: Number(new URL(m[1]).port), child, dataDir, output: () => out, exited: () => exited });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", () => fail(new Error(`panel exited: ${out}`)));
  });
}

/** The panel's resident memory in MiB, read with ps (the panel itself never reads /proc). */
function rssMiB(pid) {
  try {
    return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;
  } catch {
    return NaN;
  }
}

function sampler(pid) {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid) || 0)), 100);
  return { stop: () => (clearInterval(timer), peak), get peak() { return peak; } };
}

async function answers(url, cookie) {
  const t0 = performance.now();
  try {
    const r = await fetch(url + "/api/user/status", { headers: cookie ? { Cookie: cookie } : {}, signal: AbortSignal.timeout(10_000) });
    await r.body?.cancel();
    return { status: r.status, ms: performance.now() - t0 };
  } catch (e) {
    return { status: String(e.cause?.code ?? e.name), ms: performance.now() - t0 };
  }
}

async function signIn(url) {
  const r = await fetch(url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: "admin", password: PASSWORD }),
  });
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status}`);
  return r.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) => c.startsWith("authentication="));
}

/** Opens /ws over raw TCP and writes one masked binary frame of `size` bytes; resolves with the bytes written before the panel closed it. */
function bigMessage(panel, cookie, size) {
  return new Promise((done) => {
    const s = net.createConnection({ host: "127.0.0.1", port: panel.port });
    let written = 0;
    let upgraded = false;
    s.on("error", () => done(written));
    s.on("close", () => done(written));
    s.on("data", (d) => {
      if (upgraded || !d.toString("latin1").startsWith("HTTP/1.1 101")) return;
      upgraded = true;
      const head = Buffer.alloc(14);
      head[0] = 0x82;
      head[1] = 0xff;
      head.writeBigUInt64BE(BigInt(size), 2);
      const chunk = Buffer.alloc(1024 * 1024, 7);
      const pump = () => {
        while (written < size) {
          written += chunk.length;
          if (!s.write(chunk)) return s.once("drain", pump);
        }
      };
      s.write(head);
      pump();
    });
    s.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${panel.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${Buffer.from("0123456789abcdef").toString("base64")}\r\nSec-WebSocket-Version: 13\r\n` +
      `Origin: ${panel.url}\r\nCookie: ${cookie}\r\n\r\n`);
  });
}

const fmt = (n) => n.toFixed(1);
const panel = await startPanel();
const pid = panel.child.pid;
try {
  const cookie = await signIn(panel.url);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMiB(pid);
  const baseline = await answers(panel.url, cookie);

  // 1. The flood.
  const rss = sampler(pid);
  const sockets = [];
  let refused = 0;
  let closedByPanel = 0;
  for (let i = 0; i < FLOOD; i++) {
    await new Promise((done) => {
      const s = net.createConnection({ host: "127.0.0.1", port: panel.port }, done);
      s.on("error", () => (refused++, done()));
      s.on("close", () => closedByPanel++);
      sockets.push(s);
    });
  }
  const heldAfterOpening = FLOOD - refused - closedByPanel;
  const during = await answers(panel.url, cookie);
  await new Promise((r) => setTimeout(r, HOLD_S * 1000));
  const heldAtEnd = FLOOD - refused - closedByPanel;
  for (const s of sockets) s.destroy();
  await new Promise((r) => setTimeout(r, 500));
  const after = await answers(panel.url, cookie);
  const floodPeak = rss.stop();
  console.log(`flood: ${FLOOD} idle connections under ulimit -n 1024, held ${HOLD_S} s`);
  console.log(`  panel process ${panel.exited() ? `ENDED (${JSON.stringify(panel.exited())})` : "alive"}`);
  console.log(`  connections held: ${heldAfterOpening} when all were opened, ${heldAtEnd} after ${HOLD_S} s (refused ${refused})`);
  console.log(`  signed-in status during the flood: ${during.status} in ${fmt(during.ms)} ms; after it: ${after.status} in ${fmt(after.ms)} ms (idle reference ${fmt(baseline.ms)} ms)`);
  console.log(`  peak RSS ${fmt(floodPeak)} MiB vs idle ${fmt(idle)} MiB: ratio ${(floodPeak / idle).toFixed(2)}`);

  // 2. The sign-in burst, with a signed-in browser asking for its status meanwhile.
  const burstRss = sampler(pid);
  const probes = [];
  let bursting = true;
  const prober = (async () => {
    while (bursting) {
      probes.push(await answers(panel.url, cookie));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const t0 = performance.now();
  // One connection per attempt (node:http without an agent), as a script hammering the sign-in would.
  const body = JSON.stringify({ username: "admin", password: "wrong-guess" });
  const results = await Promise.all(Array.from({ length: 300 }, () =>
    new Promise((done) => {
      const req = http.request(panel.url + "/api/login", {
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      }, (res) => {
        res.resume();
        res.on("end", () => done(res.statusCode));
      });
      req.on("error", (e) => done("connection " + (e.code ?? e.message)));
      req.end(body);
    })
  ));
  const burstMs = performance.now() - t0;
  bursting = false;
  await prober;
  const burstPeak = burstRss.stop();
  const counts = {};
  for (const r of results) counts[r] = (counts[r] ?? 0) + 1;
  const worst = Math.max(...probes.map((p) => p.ms));
  const probeStatuses = [...new Set(probes.map((p) => p.status))].join(", ");
  console.log(`sign-in burst: 300 parallel wrong passwords from one address, done in ${fmt(burstMs)} ms`);
  console.log(`  attempts evaluated (401): ${counts[401] ?? 0} of 300; answers: ${JSON.stringify(counts)}`);
  console.log(`  signed-in status meanwhile: ${probes.length} requests (${probeStatuses}), slowest ${fmt(worst)} ms (idle reference ${fmt(baseline.ms)} ms)`);
  console.log(`  peak RSS ${fmt(burstPeak)} MiB vs idle ${fmt(idle)} MiB: ratio ${(burstPeak / idle).toFixed(2)}`);
  console.log(`  panel process ${panel.exited() ? "ENDED" : "alive"}`);
  if (process.env.HOSTILE_LOG) console.log(panel.output().split("\n").filter((l) => /WARN/.test(l) && !/Failed sign-in/.test(l)).slice(-8).join("\n"));

  // 3. Eight signed-in WebSocket clients each sending one 64 MiB message (the limit is 64 KiB).
  const wsRss = sampler(pid);
  const sent = await Promise.all(Array.from({ length: 8 }, async () => {
    const c = await signIn(panel.url).catch(() => cookie);
    return bigMessage(panel, c, 64 * 1024 * 1024);
  }));
  const wsPeak = wsRss.stop();
  console.log(`8 WebSocket clients sending a 64 MiB message each: closed by the panel after ${sent.map((n) => `${(n / 1048576).toFixed(1)}`).join(", ")} MiB written`);
  console.log(`  peak RSS ${fmt(wsPeak)} MiB vs idle ${fmt(idle)} MiB: ratio ${(wsPeak / idle).toFixed(2)}`);
  console.log(`  panel process ${panel.exited() ? "ENDED" : "alive"}`);
} finally {
  panel.child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 1000));
  rmSync(panel.dataDir, { recursive: true, force: true });
}
