// Upload of a 1 GiB save through the real API (POST /api/saves/upload, multipart field "savefile"):
// throughput, and how much the backend's resident memory grows while it streams the file to disk.
//   node bench/saves-upload.mjs [MiB]
//
// The peak is the kernel's VmHWM of the panel process, reset just before the upload (clear_refs 5), so the
// figure is the growth caused by the upload alone. Target: under 64 MiB.

import { mkdtempSync, openAsBlob, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLogin, filler, ROOT, rssMiB, startPanel, stopPanel, writeZip } from "./lib.mjs";

const mib = Number(process.argv[2] ?? 1024);
const dir = mkdtempSync(join(tmpdir(), "bench-saves-upload-"));
const factorioDir = join(dir, "factorio");
const savePath = join(dir, "big.zip");
let panel;
try {
  const header = readFileSync(join(ROOT, "tests/fixtures/saves/2_0_spaceage.level-init.dat")).subarray(0, 4096);
  const size = await writeZip(savePath, [
    { name: "big/level-init.dat", chunks: async function* () { yield header; } },
    { name: "big/level.dat0", chunks: () => filler(mib * 1024 * 1024 - 8192) },
  ]);

  panel = await startPanel({ args: ["--factorio-dir", factorioDir] });
  const cookie = await benchLogin(panel.url);
  const pid = panel.child.pid;
  await new Promise((r) => setTimeout(r, 1000));
  const before = rssMiB(pid);
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
  } catch {
    console.log("(could not reset the peak; the figure includes the panel's earlier peak)");
  }
  let sampled = before;
  const sampler = setInterval(() => (sampled = Math.max(sampled, rssMiB(pid))), 50);

  const form = new FormData();
  form.append("savefile", await openAsBlob(savePath, { type: "application/zip" }), "big.zip");
  const started = performance.now();
  const r = await fetch(panel.url + "/api/saves/upload", { method: "POST", headers: { Cookie: cookie }, body: form });
  const body = await r.text();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (r.status !== 200) throw new Error(`upload failed: ${r.status} ${body}`);
  const stored = statSync(join(factorioDir, "saves", "big.zip")).size;
  if (stored !== size) throw new Error(`stored ${stored} bytes, sent ${size}`);
  const peak = rssMiB(pid, "VmHWM");

  console.log(`upload of a ${(size / 1024 ** 3).toFixed(2)} GiB save through POST /api/saves/upload: ${seconds.toFixed(1)} s, ${(size / 1024 ** 2 / seconds).toFixed(0)} MiB/s`);
  console.log(`backend RSS before ${before.toFixed(1)} MiB, peak during the upload ${peak.toFixed(1)} MiB (sampled max ${sampled.toFixed(1)} MiB): growth ${(peak - before).toFixed(1)} MiB (target < 64 MiB)`);
} finally {
  if (panel) await stopPanel(panel);
  rmSync(dir, { recursive: true, force: true });
}
