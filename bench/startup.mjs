// Cold start of the backend: from spawning `deno run` on the launcher's entry (the backend's bundle,
// scripts/bundle.mjs) to the first answered HTTP request (GET /api/user/status, which touches the session
// guard and the database). Also the idle memory. Beside it, the same panel started from its sources
// (backend/main.ts), which is what the bundle saves.
//   node bench/startup.mjs [runs]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { DENO, listening, median, ROOT, rssMiB, startBare, startPanel, stopBare, stopPanel } from "./lib.mjs";
import { PANEL_ENTRY, panelDenoArgs } from "../scripts/launcher.mjs";

const runs = Number(process.argv[2] ?? 7);

async function firstAnswer(p) {
  for (;;) {
    try {
      const r = await fetch(p.url + "/api/user/status");
      await r.body?.cancel();
      return performance.now() - p.started;
    } catch {
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}

// First start ever: creates the database and the admin user (one scrypt hash).
const fresh = [];
for (let i = 0; i < runs; i++) {
  const p = await startPanel();
  fresh.push(await firstAnswer(p));
  await stopPanel(p);
}

// Every later start (the data dir exists), alternated start by start with the reference: a bare
// Deno.serve (bench/bare-server.ts) started with the same permission flags, from spawn to its first
// answer. Alternating keeps a slow spell of the machine from landing on one side only.
async function bareStart() {
  const started = performance.now();
  const b = await startBare('"ok"');
  for (;;) {
    try {
      const r = await fetch(b.url + "/");
      await r.body?.cancel();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  return { b, ms: performance.now() - started };
}
// The sources: the launcher's command line with backend/main.ts in place of the bundle.
function startSources(dataDir) {
  const started = performance.now();
  const child = spawn(DENO, panelDenoArgs(["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir], PANEL_ENTRY), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return listening(child, "panel").then((url) => ({ url, child, started, dataDir, ownDir: false }));
}
const dir = mkdtempSync(join(tmpdir(), "panel-bench-"));
const warm = [];
const bare = [];
const sources = [];
for (let i = 0; i < runs; i++) {
  const p = await startPanel({ dataDir: dir });
  warm.push(await firstAnswer(p));
  await stopPanel(p);
  const { b, ms } = await bareStart();
  bare.push(ms);
  await stopBare(b);
  const s = await startSources(dir);
  sources.push(await firstAnswer(s));
  await stopPanel(s);
}

// Memory when idle, 5 s after start (the panel's deferred services load a second after start).
const p = await startPanel({ dataDir: dir });
await firstAnswer(p);
await new Promise((r) => setTimeout(r, 5000));
const idle = [rssMiB(p.child.pid), rssMiB(p.child.pid, "VmHWM")];
await stopPanel(p);
rmSync(dir, { recursive: true, force: true });
const { b } = await bareStart();
await new Promise((r) => setTimeout(r, 5000));
const bareIdle = [rssMiB(b.child.pid), rssMiB(b.child.pid, "VmHWM")];
await stopBare(b);

console.log(`cold start to first answered request, first start (creates db + admin), median of ${runs}: ${median(fresh).toFixed(0)} ms`);
console.log(
  `cold start to first answered request, existing data dir, median of ${runs}: ${median(warm).toFixed(0)} ms; ` +
    `bare Deno.serve, same flags: ${median(bare).toFixed(0)} ms; ratio ${(median(warm) / median(bare)).toFixed(2)} (target <= 2)`,
);
console.log(
  `the same from the sources (backend/main.ts, not bundled): ${median(sources).toFixed(0)} ms; ` +
    `ratio to bare ${(median(sources) / median(bare)).toFixed(2)}; the bundle takes ${(median(warm) / median(sources)).toFixed(2)} of it`,
);
console.log(
  `idle memory 5 s after start: panel RSS ${idle[0].toFixed(1)} MiB (peak ${idle[1].toFixed(1)} MiB); ` +
    `bare Deno.serve ${bareIdle[0].toFixed(1)} MiB; ratio ${(idle[0] / bareIdle[0]).toFixed(2)} (target: panel <= 61.6 MiB)`,
);
