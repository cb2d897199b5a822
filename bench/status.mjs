// GET /api/server/status with a session, 50 connections under wrk, beside a bare Deno.serve answering the
// very same JSON, in the same run (runs alternated, median of 3). The panel is started as `npm start`
// starts it, with a (simulated) Factorio installed and stopped.
//   node bench/status.mjs [seconds per run]   (needs Debian's wrk: apt-get install wrk)

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLogin, DENO, median, PANEL_PERMISSIONS, panelHeaders, ROOT, startBare, startPanel, stopBare, stopPanel, wrk } from "./lib.mjs";

const SECONDS = Number(process.argv[2] ?? 5);
const RUNS = 3;

const factorioDir = mkdtempSync(join(tmpdir(), "bench-factorio-"));
spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "tests/fake-factorio/install.ts", factorioDir, "2.0"], { cwd: ROOT, stdio: "ignore" });
const panel = await startPanel({ args: ["--factorio-dir", factorioDir] });
try {
  const cookie = await benchLogin(panel.url);
  const r = await fetch(panel.url + "/api/server/status", { headers: { Cookie: cookie } });
  if (r.status !== 200) throw new Error(`status: ${r.status}`);
  const body = await r.text();
  const bare = await startBare(body);
  const gated = await startBare(body, "application/json", { gate: true });
  // The most any handler could reach with the panel's protections: the gate in front, and the answer's
  // headers as the panel sends them.
  const extra = panelHeaders(r);
  const ceiling = await startBare(body, "application/json", { gate: true, headers: extra });
  // And one that also reads the request's session cookie, which no signed-in answer can skip.
  const cookied = await startBare(body, "application/json", { gate: true, headers: extra, readCookie: true });
  const p = [];
  const b = [];
  const g = [];
  const c = [];
  const k = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      p.push(wrk(panel.url + "/api/server/status", { seconds: SECONDS, headers: { Cookie: cookie } }));
      b.push(wrk(bare.url + "/", { seconds: SECONDS }));
      g.push(wrk(gated.url + "/", { seconds: SECONDS }));
      c.push(wrk(ceiling.url + "/", { seconds: SECONDS }));
      k.push(wrk(cookied.url + "/", { seconds: SECONDS, headers: { Cookie: cookie } }));
    }
  } finally {
    await stopBare(bare);
    await stopBare(gated);
    await stopBare(ceiling);
    await stopBare(cookied);
  }
  const m = (runs, k) => median(runs.map((x) => x[k]));
  console.log(
    `GET /api/server/status, session, 50 connections, median of ${RUNS} x ${SECONDS} s: ` +
      `panel ${m(p, "rps").toFixed(0)} req/s (p50 ${m(p, "p50").toFixed(2)} ms, p99 ${m(p, "p99").toFixed(2)} ms); ` +
      `bare Deno.serve, same JSON: ${m(b, "rps").toFixed(0)} req/s (p50 ${m(b, "p50").toFixed(2)} ms, p99 ${m(b, "p99").toFixed(2)} ms); ` +
      `ratio ${(m(p, "rps") / m(b, "rps")).toFixed(2)} (target >= 0.6, p99 < 10 ms)`,
  );
  console.log(
    `  the same bare handler behind the panel's connection gate: ${m(g, "rps").toFixed(0)} req/s ` +
      `(p50 ${m(g, "p50").toFixed(2)} ms, p99 ${m(g, "p99").toFixed(2)} ms), ${(m(g, "rps") / m(b, "rps")).toFixed(2)} of bare; ` +
      `panel / gated bare: ${(m(p, "rps") / m(g, "rps")).toFixed(2)}`,
  );
  console.log(
    `  the same behind the gate, also with the panel's headers (${Object.keys(extra).join(", ")}): ${m(c, "rps").toFixed(0)} req/s, ` +
      `${(m(c, "rps") / m(b, "rps")).toFixed(2)} of bare (the most the panel's ratio can be with those); panel / that: ${(m(p, "rps") / m(c, "rps")).toFixed(2)}`,
  );
  console.log(
    `  the same, also reading the request's session cookie: ${m(k, "rps").toFixed(0)} req/s, ${(m(k, "rps") / m(b, "rps")).toFixed(2)} of bare ` +
      `(what a handler that checks a session can reach); panel / that: ${(m(p, "rps") / m(k, "rps")).toFixed(2)}`,
  );
} finally {
  await stopPanel(panel);
  rmSync(factorioDir, { recursive: true, force: true });
}
