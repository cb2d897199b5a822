// The time from opening the world generator to its first preview, on the simulator: what the page does
// (GET /api/world/generator, which on a first call runs the game's --dump-data, then POST
// /api/world/preview, which runs --generate-map-preview), for a first open and for later opens (the data
// dump and that preview then come from the panel's caches), median of N. The reference, measured in the
// same run: one bare run of the game binary (`factorio --version`), the floor of anything that starts it.
//   node bench/generator-preview.mjs [runs]
// It runs itself under Deno (the simulator's installer).

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DENO, PANEL_PERMISSIONS, ROOT } from "./lib.mjs";

if (typeof Deno === "undefined") {
  const r = spawnSync(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ], { cwd: ROOT, stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const { mkdtempSync, rmSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const { join } = await import("node:path");
const { installFakeFactorio } = await import("../tests/fake-factorio/install.ts");
const { startPanel, stopPanel, benchLogin } = await import("./lib.mjs");

const runs = Number(Deno.args[0] ?? 5);
const median = (t) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)];
const factorio = installFakeFactorio(mkdtempSync(join(tmpdir(), "bench-factorio-")), "2.0");
let panel;
try {
  const versionRuns = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await new Deno.Command(factorio.binary, { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    if (!r.success) throw new Error("--version failed");
    versionRuns.push(performance.now() - t);
  }
  panel = await startPanel({ args: ["--factorio-dir", factorio.dir] });
  const cookie = await benchLogin(panel.url);
  const headers = { Cookie: cookie, Origin: panel.url, "Content-Type": "application/json" };
  const open = async (seed) => {
    const t = performance.now();
    const info = await (await fetch(panel.url + "/api/world/generator", { headers })).json();
    const settings = {
      map_gen_settings: { ...info.map_gen_settings, seed },
      map_settings: info.map_settings,
    };
    const r = await fetch(panel.url + "/api/world/preview", {
      method: "POST",
      headers,
      body: JSON.stringify({ settings, planet: "nauvis", size: 512 }),
    });
    const png = new Uint8Array(await r.arrayBuffer());
    if (r.status !== 200 || png[1] !== 80) throw new Error(`preview: ${r.status}`);
    return performance.now() - t;
  };
  const first = await open(1);
  const fresh = [];
  for (let i = 0; i < runs; i++) fresh.push(await open(100 + i)); // a new seed: the game renders again
  const cached = [];
  for (let i = 0; i < runs; i++) cached.push(await open(100)); // the same settings: from the cache
  const ref = median(versionRuns);
  console.log(`game binary start (factorio --version): ${ref.toFixed(0)} ms median of ${runs}`);
  console.log(
    `first open (data dump + preview): ${first.toFixed(0)} ms  | ratio ${(first / ref).toFixed(1)}`,
  );
  console.log(
    `later open, new settings (preview rendered): ${median(fresh).toFixed(0)} ms median  | ratio ${
      (median(fresh) / ref).toFixed(1)
    }`,
  );
  console.log(
    `later open, same settings (preview cached): ${median(cached).toFixed(0)} ms median  | ratio ${
      (median(cached) / ref).toFixed(2)
    }`,
  );
} finally {
  if (panel) await stopPanel(panel);
  rmSync(factorio.dir, { recursive: true, force: true });
}
