// `npm test`: every suite, then one plain line "N passed, N failed" summing them.
//   deno test (backend, simulator, fakes)  ·  vitest (PWA)  ·  Playwright (end to end, Debian Chromium)
// Run a subset with `npm test -- deno`, `npm test -- vitest`, `npm test -- e2e` (combinable); anything
// after the suite names is passed to that single suite (e.g. `npm test -- e2e tests/e2e/auth.spec.ts`).

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { BIN, buildPwa, ensureDeps } from "./lib.mjs";
import { DENO, denoTestArgs, ROOT } from "./launcher.mjs";

const SUITES = ["deno", "vitest", "e2e"];
const argv = process.argv.slice(2);
const chosen = argv.filter((a) => SUITES.includes(a));
const extra = argv.filter((a) => !SUITES.includes(a));
const suites = chosen.length ? chosen : SUITES;
if (extra.length && suites.length !== 1) {
  console.error("Extra arguments need exactly one suite, e.g. npm test -- deno backend/http/");
  process.exit(2);
}

ensureDeps();
const tmp = join(ROOT, ".tmp");
mkdirSync(tmp, { recursive: true });

function capture(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
    maxBuffer: 256 * 1024 * 1024,
  });
  const out = (r.stdout?.toString() ?? "") + (r.stderr?.toString() ?? "");
  process.stdout.write(out);
  return { code: r.status ?? 1, out };
}

const results = [];
// pebble (the HTTPS tests' ACME CA) and caddy, from Debian: installed when missing (as root), else named.
if (
  (suites.includes("deno") || suites.includes("e2e")) &&
  spawnSync("bash", [join(ROOT, "scripts/ensure-system.sh")], { stdio: "inherit" }).status !== 0
) {
  results.push(["system packages", 0, 1]);
}

if (suites.includes("deno")) {
  // The smoke tests run `npm start` and `npm run compile`, which build the web app when it is stale; build
  // it once here, so parallel test files never build it at the same time.
  if (buildPwa({ onlyIfStale: true }) !== 0) results.push(["pwa build", 0, 1]);
  // Lint and format first, the same files and rules as `npm run check` (deno.json says which): a lint
  // error, or files deno fmt would change, count as one failure each.
  if (extra.length === 0) {
    const lint = capture(DENO, ["lint"], { NO_COLOR: "1" });
    if (lint.code !== 0) results.push(["deno lint", 0, 1]);
    const fmt = capture(DENO, ["fmt", "--check"], { NO_COLOR: "1" });
    if (fmt.code !== 0) results.push(["deno fmt --check (run: npx deno fmt)", 0, 1]);
  }
  // Test files mostly wait on panels and simulated games, not on the CPU: two per core keep the cores busy.
  const jobs = String(2 * availableParallelism());
  const { code, out } = capture(DENO, denoTestArgs(["--parallel", ...extra]), {
    NO_COLOR: "1",
    DENO_JOBS: jobs,
  });
  const m = /(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/.exec(out);
  if (m) results.push(["deno", Number(m[1]), Number(m[2]) + (code !== 0 && Number(m[2]) === 0 ? 1 : 0)]);
  else results.push(["deno", 0, 1]); // did not get as far as running tests (type error, crash)
}

if (suites.includes("vitest")) {
  const report = join(tmp, "vitest.json");
  rmSync(report, { force: true });
  const { code } = capture(BIN("vitest"), [
    "run",
    "--root",
    "pwa",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${report}`,
    ...extra,
  ]);
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, "utf8"));
    results.push([
      "vitest",
      r.numPassedTests,
      r.numFailedTests + (code !== 0 && r.numFailedTests === 0 ? 1 : 0),
    ]);
  } else results.push(["vitest", 0, 1]);
}

if (suites.includes("e2e")) {
  let ready =
    spawnSync("bash", [join(ROOT, "scripts/ensure-chromium.sh")], { stdio: "inherit" }).status === 0;
  if (ready && buildPwa() !== 0) ready = false;
  if (!ready) results.push(["playwright", 0, 1]);
  else {
    const report = join(tmp, "playwright.json");
    rmSync(report, { force: true });
    const { code } = capture(BIN("playwright"), ["test", "--reporter=list,json", ...extra], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: report,
    });
    if (existsSync(report)) {
      const r = JSON.parse(readFileSync(report, "utf8"));
      const s = r.stats;
      // A test that failed once and passed on its retry counts as passed, but is named, so it gets fixed.
      for (const title of flakyTitles(r.suites)) console.log(`playwright: flaky (passed on retry): ${title}`);
      results.push([
        "playwright",
        s.expected + s.flaky,
        s.unexpected + (code !== 0 && s.unexpected === 0 ? 1 : 0),
      ]);
    } else results.push(["playwright", 0, 1]);
  }
}

function flakyTitles(suites, out = []) {
  for (const suite of suites ?? []) {
    for (const spec of suite.specs ?? []) {
      if (spec.tests.some((t) => t.status === "flaky")) out.push(`${spec.file} › ${spec.title}`);
    }
    flakyTitles(suite.suites, out);
  }
  return out;
}

console.log("");
for (const [name, passed, failed] of results) console.log(`${name}: ${passed} passed, ${failed} failed`);
const passed = results.reduce((n, r) => n + r[1], 0);
const failed = results.reduce((n, r) => n + r[2], 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
