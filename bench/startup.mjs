// Cold start of the backend: from spawning the panel as `npm start` does (the launcher's command: sh, then
// `deno run backend/main.ts` with the panel's permissions) to the first answered HTTP request (GET
// /api/user/status, which touches the session guard and the database), alternated start by start with a
// bare Deno.serve (bench/bare-server.ts, same permission flags) from spawn to its first answer. Also the
// idle memory of both.
//   node bench/startup.mjs [runs]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, rssMiB, startBare, startPanel, stopBare, stopPanel } from "./lib.mjs";

const runs = Number(process.argv[2] ?? 7);

async function firstAnswer(url, started) {
  for (;;) {
    try {
      const r = await fetch(url);
      await r.body?.cancel();
      return performance.now() - started;
    } catch {
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}

// First start ever: creates the database, the VAPID keys and the admin user (one scrypt hash).
const fresh = [];
for (let i = 0; i < runs; i++) {
  const p = await startPanel();
  fresh.push(await firstAnswer(p.url + "/api/user/status", p.started));
  await stopPanel(p);
}

// Every later start (the data dir exists), alternated with the reference.
const dir = mkdtempSync(join(tmpdir(), "panel-bench-"));
const warm = [];
const bare = [];
for (let i = 0; i < runs; i++) {
  const p = await startPanel({ dataDir: dir });
  warm.push(await firstAnswer(p.url + "/api/user/status", p.started));
  await stopPanel(p);
  const started = performance.now();
  const b = await startBare('"ok"');
  bare.push(await firstAnswer(b.url + "/", started));
  await stopBare(b);
}

// Memory when idle, 5 s after start.
const p = await startPanel({ dataDir: dir });
await firstAnswer(p.url + "/api/user/status", p.started);
await new Promise((r) => setTimeout(r, 5000));
const idle = [rssMiB(p.child.pid), rssMiB(p.child.pid, "VmHWM")];
await stopPanel(p);
rmSync(dir, { recursive: true, force: true });
const b = await startBare('"ok"');
await new Promise((r) => setTimeout(r, 5000));
const bareIdle = rssMiB(b.child.pid);
await stopBare(b);

const ms = (v) => `${median(v).toFixed(0)} ms`;
console.log(
  `cold start to first answered request, first start (creates db, keys, admin), median of ${runs}: ${
    ms(fresh)
  }`,
);
console.log(
  `cold start to first answered request, existing data dir, median of ${runs}: ${
    ms(warm)
  } (target <= 300 ms); ` +
    `bare Deno.serve, same flags: ${ms(bare)}; ratio ${(median(warm) / median(bare)).toFixed(2)}`,
);
console.log(
  `idle memory 5 s after start: panel RSS ${idle[0].toFixed(1)} MiB (peak ${idle[1].toFixed(1)} MiB); ` +
    `bare Deno.serve ${bareIdle.toFixed(1)} MiB; ratio ${(idle[0] / bareIdle).toFixed(2)}`,
);
