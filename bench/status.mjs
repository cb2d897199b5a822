// GET /api/server/status with a session, 50 connections under wrk, beside a bare Deno.serve answering the
// very same JSON, in the same run: kept-alive connections, then a new connection per request
// (`Connection: close`), each alternated panel / bare, median of 3. The panel is started as `npm start`
// starts it, with a (simulated) Factorio installed and stopped.
//   node bench/status.mjs [seconds per run]   (needs Debian's wrk: apt-get install wrk)

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchLogin,
  DENO,
  median,
  PANEL_PERMISSIONS,
  ROOT,
  startBare,
  startPanel,
  stopBare,
  stopPanel,
  wrk,
} from "./lib.mjs";

const SECONDS = Number(process.argv[2] ?? 5);
const RUNS = 3;

const factorioDir = mkdtempSync(join(tmpdir(), "bench-factorio-"));
spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "tests/fake-factorio/install.ts", factorioDir, "2.0"], {
  cwd: ROOT,
  stdio: "ignore",
});
const panel = await startPanel({ args: ["--factorio-dir", factorioDir] });
try {
  const cookie = await benchLogin(panel.url);
  const r = await fetch(panel.url + "/api/server/status", { headers: { Cookie: cookie } });
  if (r.status !== 200) throw new Error(`status: ${r.status}`);
  const bare = await startBare(await r.text());
  try {
    for (
      const [label, extra] of [["kept-alive connections", {}], [
        "Connection: close (a new connection per request)",
        { Connection: "close" },
      ]]
    ) {
      const p = [];
      const b = [];
      for (let i = 0; i < RUNS; i++) {
        p.push(
          wrk(panel.url + "/api/server/status", { seconds: SECONDS, headers: { Cookie: cookie, ...extra } }),
        );
        b.push(wrk(bare.url + "/", { seconds: SECONDS, headers: extra }));
      }
      const m = (runs, k) => median(runs.map((x) => x[k]));
      console.log(
        `GET /api/server/status, session, 50 connections, ${label}, median of ${RUNS} x ${SECONDS} s alternated: ` +
          `panel ${m(p, "rps").toFixed(0)} req/s (p50 ${m(p, "p50").toFixed(2)} ms, p99 ${
            m(p, "p99").toFixed(2)
          } ms); ` +
          `bare Deno.serve, same JSON: ${m(b, "rps").toFixed(0)} req/s (p50 ${
            m(b, "p50").toFixed(2)
          } ms, p99 ${m(b, "p99").toFixed(2)} ms); ` +
          `ratio ${(m(p, "rps") / m(b, "rps")).toFixed(2)} (target >= 0.6)`,
      );
    }
  } finally {
    await stopBare(bare);
  }
} finally {
  await stopPanel(panel);
  rmSync(factorioDir, { recursive: true, force: true });
}
