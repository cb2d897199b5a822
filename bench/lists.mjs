// GET /api/saves/list and GET /api/mods/list with a session, under wrk (50 connections), beside a bare
// Deno.serve answering the very same JSON, in the same run (runs alternated, median of 3):
// 20, 500 and 2,000 saves; 10, 300 and 1,000 mods. The panel is started as `npm start` starts it.
//   node bench/lists.mjs [seconds per run]   (needs Debian's wrk: apt-get install wrk)

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchLogin,
  DENO,
  median,
  PANEL_PERMISSIONS,
  panelHeaders,
  ROOT,
  startBare,
  startPanel,
  stopBare,
  stopPanel,
  writeZip,
  wrk,
} from "./lib.mjs";

const SECONDS = Number(process.argv[2] ?? 4);
const RUNS = 3;
const SAVES = [20, 500, 2000];
const MODS = [10, 300, 1000];

const factorioDir = mkdtempSync(join(tmpdir(), "bench-factorio-"));
spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "tests/fake-factorio/install.ts", factorioDir, "2.0"], {
  cwd: ROOT,
  stdio: "ignore",
});
const savesDir = join(factorioDir, "saves");
const modsDir = join(factorioDir, "mods");
mkdirSync(savesDir, { recursive: true });
mkdirSync(modsDir, { recursive: true });

const once = (b) =>
  async function* () {
    yield Buffer.from(b);
  };
async function addSaves(from, to) {
  for (let i = from; i < to; i++) {
    await writeZip(join(savesDir, `world-${i}.zip`), [{
      name: `world-${i}/level.dat0`,
      chunks: once("x".repeat(64)),
    }]);
  }
}
async function addMods(from, to) {
  for (let i = from; i < to; i++) {
    const name = `bench-mod-${i}`;
    const info = JSON.stringify({
      name,
      version: "1.0.0",
      title: `Bench mod ${i}`,
      author: "bench",
      factorio_version: "2.0",
      dependencies: ["base >= 2.0"],
    });
    await writeZip(join(modsDir, `${name}_1.0.0.zip`), [
      { name: `${name}_1.0.0/info.json`, chunks: once(info) },
      { name: `${name}_1.0.0/data.lua`, chunks: once("-- bench\n") },
    ]);
  }
}

const panel = await startPanel({ args: ["--factorio-dir", factorioDir] });
const cookie = await benchLogin(panel.url);
const rows = [];
try {
  const measure = async (what, count, path) => {
    // The files were written just now; a listing built within about a second of a change is not trusted
    // and built again (backend/lib/foldercache.ts, "racy" stamps). A user's saves and mods are older:
    // measure them as such, once the panel has built its trusted value.
    await new Promise((r) => setTimeout(r, 1500));
    await (await fetch(panel.url + path, { headers: { Cookie: cookie } })).arrayBuffer();
    const r = await fetch(panel.url + path, { headers: { Cookie: cookie } });
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    const body = await r.text();
    const items = JSON.parse(body).length;
    const bare = await startBare(body);
    // With the panel's headers too: the most the panel could reach with them.
    const ceiling = await startBare(body, "application/json", { headers: panelHeaders(r) });
    const p = [];
    const b = [];
    const c = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        p.push(wrk(panel.url + path, { seconds: SECONDS, headers: { Cookie: cookie } }));
        b.push(wrk(bare.url + "/", { seconds: SECONDS }));
        c.push(wrk(ceiling.url + "/", { seconds: SECONDS }));
      }
    } finally {
      await stopBare(bare);
      await stopBare(ceiling);
    }
    const pr = median(p.map((x) => x.rps));
    const br = median(b.map((x) => x.rps));
    const cr = median(c.map((x) => x.rps));
    rows.push({
      what,
      count,
      items,
      bytes: body.length,
      pr,
      br,
      p50: median(p.map((x) => x.p50)),
      p99: median(p.map((x) => x.p99)),
    });
    const last = rows.at(-1);
    console.log(
      `GET ${path}, ${count} ${what} (${items} rows, ${(body.length / 1024).toFixed(0)} KiB): panel ${
        pr.toFixed(0)
      } req/s ` +
        `(p50 ${last.p50.toFixed(1)} ms, p99 ${last.p99.toFixed(1)} ms, ${
          (1e6 / pr).toFixed(0)
        } µs/request); ` +
        `bare Deno.serve, same JSON: ${br.toFixed(0)} req/s (${(1e6 / br).toFixed(0)} µs/request); ratio ${
          (pr / br).toFixed(2)
        } (target >= 0.5); ` +
        `bare with the panel's headers ${cr.toFixed(0)} req/s (${
          (cr / br).toFixed(2)
        } of bare), panel / that ${(pr / cr).toFixed(2)}`,
    );
  };
  let have = 0;
  for (const n of SAVES) {
    await addSaves(have, n);
    have = n;
    await measure("saves", n, "/api/saves/list");
  }
  have = 0;
  for (const n of MODS) {
    await addMods(have, n);
    have = n;
    await measure("mods", n, "/api/mods/list");
  }
  // What an unchanged request costs beyond the bare server's, per listed item: flat means "independent
  // of the count".
  for (const what of ["saves", "mods"]) {
    const r = rows.filter((x) => x.what === what);
    console.log(
      `${what}: extra cost over the bare server per request: ` +
        r.map((x) => `${x.count} -> ${(1e6 / x.pr - 1e6 / x.br).toFixed(0)} µs`).join(", "),
    );
  }
} finally {
  await stopPanel(panel);
  rmSync(factorioDir, { recursive: true, force: true });
}
