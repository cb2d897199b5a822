// Installing the game from factorio.com: the panel's whole install (download with sha256 on the way, the
// checksum compared, unpack with the archive rules, --version and info.json checked, rename into place)
// of a ~60 MB .tar.xz from the local double (tests/fake-factorio-com), against `curl -sL URL | tar -xJ`
// of the same file in the same run: the ratio is the cost of doing it safely. Also the panel's peak RSS
// growth during the install (ps -o rss, sampled every 100 ms; target under 64 MiB).
//   node bench/factorio-install.mjs [--rounds N] [--padding-mb N]

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DENO, median, PANEL_PERMISSIONS, ROOT, startPanel, stopPanel } from "./lib.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const rounds = arg("rounds", 3);
const paddingMb = arg("padding-mb", 58);
const VERSION = "2.0.77";

function rssKiB(pid) {
  const r = spawnSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" });
  return Number(r.stdout.trim()) || 0;
}

async function startFake() {
  const cache = join(ROOT, ".tmp", "fake-factorio-com-bench");
  mkdirSync(cache, { recursive: true });
  const child = spawn(
    DENO,
    [
      "run",
      ...PANEL_PERMISSIONS,
      join(ROOT, "tests/fake-factorio-com/main.ts"),
      "--cache-dir",
      cache,
      "--padding-mb",
      String(paddingMb),
      "--releases",
      `${VERSION}:stable`,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise((ok, fail) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) ok(m[1]);
    });
    child.on("exit", (code) => fail(new Error(`fake factorio.com exited with ${code}`)));
  });
  // Builds the tarball (once, cached) before anything is timed.
  const sums = await (await fetch(`${url}/download/sha256sums/`)).text();
  return { url, child, sums };
}

function reference(url) {
  const dir = mkdtempSync(join(tmpdir(), "bench-curl-tar-"));
  const t0 = performance.now();
  const r = spawnSync("sh", [
    "-c",
    `curl -sL "${url}/get-download/${VERSION}/headless/linux64" | tar -xJ -C "${dir}"`,
  ], { stdio: "inherit" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error("curl | tar failed");
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function panelInstall(url) {
  const factorioDir = mkdtempSync(join(tmpdir(), "bench-factorio-"));
  const panel = await startPanel({ args: ["--factorio-dir", factorioDir, "--factorio-com-url", url] });
  try {
    const headers = { "Content-Type": "application/json", Origin: panel.url };
    const login = await fetch(`${panel.url}/api/login`, {
      method: "POST",
      headers,
      body: JSON.stringify({ username: "admin", password: "bench-password" }),
    });
    headers.Cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    // The list is fetched (and cached) first, as the page does before anyone presses Install.
    await fetch(`${panel.url}/api/factorio/versions`, { headers });
    await new Promise((r) => setTimeout(r, 500));
    const base = rssKiB(panel.child.pid);
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(panel.child.pid))), 100);
    const phases = {};
    const t0 = performance.now();
    const r = await fetch(`${panel.url}/api/factorio/install`, {
      method: "POST",
      headers,
      body: JSON.stringify({ version: VERSION }),
    });
    if (r.status !== 202) throw new Error(`install answered ${r.status}: ${await r.text()}`);
    let state;
    do {
      await new Promise((res) => setTimeout(res, 50));
      state = await (await fetch(`${panel.url}/api/factorio/versions`, { headers })).json();
      if (state.install) phases[state.install.phase] ??= performance.now() - t0;
    } while (!state.install || !["done", "failed", "cancelled"].includes(state.install.phase));
    const ms = performance.now() - t0;
    clearInterval(sampler);
    if (state.install.phase !== "done") throw new Error(state.install.message);
    return { ms, baseMiB: base / 1024, growthMiB: (peak - base) / 1024, size: state.install.total, phases };
  } finally {
    await stopPanel(panel);
    rmSync(factorioDir, { recursive: true, force: true });
  }
}

const fake = await startFake();
try {
  const ours = [];
  const refs = [];
  let size = 0;
  let growth = 0;
  let baseline = 0;
  const phaseRows = [];
  for (let i = 0; i < rounds; i++) {
    refs.push(reference(fake.url));
    const p = await panelInstall(fake.url);
    ours.push(p.ms);
    size = p.size;
    growth = Math.max(growth, p.growthMiB);
    baseline = p.baseMiB;
    phaseRows.push(p.phases);
  }
  const mb = (size / 1024 / 1024).toFixed(1);
  console.log(`tarball: ${mb} MiB .tar.xz (${VERSION}), ${rounds} rounds, medians`);
  console.log(
    `panel install (download + sha256 + verify + unpack + --version + rename): ${median(ours).toFixed(0)} ms`,
  );
  console.log(
    `reference curl -sL | tar -xJ of the same file:                         ${median(refs).toFixed(0)} ms`,
  );
  console.log(`ratio panel / reference: ${(median(ours) / median(refs)).toFixed(2)}`);
  // Without the game's own --version run (a Deno start-up in the simulator; instant in the real game).
  const toTesting = median(phaseRows.map((r) => r.testing ?? NaN));
  console.log(
    `panel download + sha256 + unpack (until the game's --version): ${toTesting.toFixed(0)} ms, ratio ${
      (toTesting / median(refs)).toFixed(2)
    }`,
  );
  // When each phase was first seen (ms after the request), per round: where the time goes.
  for (const row of phaseRows) {
    console.log(
      `  phases seen at: ${Object.entries(row).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`,
    );
  }
  console.log(`  (the simulator's --version is a Deno start-up; the real game answers it at once)`);
  console.log(
    `panel RSS before: ${baseline.toFixed(1)} MiB, peak growth during the install: ${
      growth.toFixed(1)
    } MiB (target < 64 MiB)`,
  );
} finally {
  fake.child.kill("SIGTERM");
}
