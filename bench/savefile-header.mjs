// Reading the header of a 100 MB save through POST /api/saves/mods (the save-file reader behind the real
// API), for the two layouts that matter:
//   - 1.1.14 and later: level-init.dat placed after 100 MB of map chunks (the reader must seek, not scan);
//   - before 1.1.14: one 100 MB deflated level.dat (the reader must inflate only its first bytes).
// Also the time to inflate that whole level.dat once, to show what is not being done.
//   node bench/savefile-header.mjs [runs]

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInflateRaw } from "node:zlib";
import { benchLogin, filler, median, percentile, ROOT, startPanel, stopPanel, writeZip } from "./lib.mjs";

const runs = Number(process.argv[2] ?? 25);
const MB = 100 * 1000 * 1000;
const dir = mkdtempSync(join(tmpdir(), "bench-savefile-header-"));
const saves = join(dir, "factorio", "saves");
mkdirSync(saves, { recursive: true });
let panel;
try {
  // A real 2.0 header, then the rest of the real level-init.dat.
  const levelInit = readFileSync(join(ROOT, "tests/fixtures/saves/2_0_spaceage.level-init.dat"));
  const chunk = 1024 * 1024;
  await writeZip(join(saves, "split.zip"), [
    ...Array.from({ length: Math.ceil(MB / chunk) }, (_, i) => ({
      name: `split/level.dat${i}`,
      chunks: () => filler(Math.min(chunk, MB - i * chunk)),
    })),
    {
      name: "split/level-init.dat",
      chunks: async function* () {
        yield levelInit;
      },
      method: "deflate",
    },
  ]);
  await writeZip(join(saves, "single.zip"), [
    {
      name: "single/level.dat",
      method: "deflate",
      chunks: async function* () {
        yield levelInit;
        yield* filler(MB - levelInit.length);
      },
    },
  ]);

  panel = await startPanel({ args: ["--factorio-dir", join(dir, "factorio")] });
  const cookie = await benchLogin(panel.url);
  const read = async (saveFile) => {
    const t = performance.now();
    const r = await fetch(panel.url + "/api/saves/mods", {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ saveFile }),
    });
    const header = await r.json();
    if (r.status !== 200 || header.mods.length !== 4) {
      throw new Error(`${saveFile}: ${r.status} ${JSON.stringify(header)}`);
    }
    return performance.now() - t;
  };
  for (const name of ["split.zip", "single.zip"]) {
    for (let i = 0; i < 3; i++) await read(name); // warm up
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await read(name));
    const size = statSync(join(saves, name)).size / 1e6;
    console.log(
      `header of a ${size.toFixed(0)} MB save (${
        name === "split.zip" ? "level-init.dat after the map chunks" : "one deflated level.dat"
      }) via POST /api/saves/mods: median ${median(times).toFixed(1)} ms, p95 ${
        percentile(times, 95).toFixed(1)
      } ms (${runs} runs)`,
    );
  }

  // What a reader that inflated the whole level.dat would spend.
  const fh = await open(join(saves, "single.zip"));
  const t = performance.now();
  await new Promise((ok, bad) => {
    const inflate = createInflateRaw();
    inflate.on("data", () => {});
    inflate.on("end", ok);
    inflate.on("error", bad);
    const s = fh.createReadStream({ start: 30 + "single/level.dat".length });
    s.pipe(inflate);
  }).catch(() => {}); // the stream runs into the descriptor after the data; the time is what matters
  console.log(
    `for comparison, inflating the whole 100 MB level.dat once: ${(performance.now() - t).toFixed(0)} ms`,
  );
  await fh.close();
} finally {
  if (panel) await stopPanel(panel);
  rmSync(dir, { recursive: true, force: true });
}
