// `npm run demo`: the panel on a simulated Factorio server, for trying it without the game.
// Installs the simulator (tests/fake-factorio) into demo-data/factorio, creates a first save when there
// is none, and starts the panel on 127.0.0.1 with its data in demo-data/panel. The demo reaches nothing
// outside this machine: factorio.com and the mod portal are the local doubles the tests use
// (tests/fake-factorio-com, tests/fake-portal), started here, and the daily update check is off.
// Arguments after `--` go to the panel (e.g. `npm run demo -- --port 9000`); DEMO_FACTORIO_VERSION=1.1|2.0|2.1
// picks the game, DEMO_DIR another folder than demo-data.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildPwa, ensureDeps } from "./lib.mjs";
import { DENO, PANEL_PERMISSIONS, ROOT, spawnPanel } from "./launcher.mjs";

const DEMO = resolve(process.env.DEMO_DIR ?? join(ROOT, "demo-data"));
const FACTORIO = join(DEMO, "factorio");
const DATA = join(DEMO, "panel");
const version = process.env.DEMO_FACTORIO_VERSION ?? "2.0";
// Deno itself asks dl.deno.land for a newer Deno now and then; the demo's processes (the panel, the
// simulated game, the stand-ins) inherit this and do not.
process.env.DENO_NO_UPDATE_CHECK = "1";

ensureDeps();
if (buildPwa({ onlyIfStale: true }) !== 0) {
  console.error("Building the web app failed; see above.");
  process.exit(1);
}

const binary = join(FACTORIO, "bin", "x64", "factorio");
if (!existsSync(binary)) {
  const r = spawnSync(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    "tests/fake-factorio/install.ts",
    FACTORIO,
    version,
  ], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const saves = join(FACTORIO, "saves");
if (!readdirSync(saves).some((n) => n.endsWith(".zip"))) {
  console.log("Creating a first save (demo-world.zip)...");
  const r = spawnSync(binary, ["--create", join(saves, "demo-world.zip")], {
    cwd: FACTORIO,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const children = [];
const stopAll = (signal) => {
  for (const c of children) if (c.exitCode === null) c.kill(signal);
};

/** Starts one of the doubles with the panel's permissions; resolves with the URL it prints once it listens. */
function startDouble(script, args = []) {
  const child = spawn(DENO, ["run", ...PANEL_PERMISSIONS, "--no-prompt", script, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((ok, fail) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n")[0];
      if (out.includes("\n")) {
        child.stdout.removeAllListeners("data");
        child.stdout.resume();
        ok(JSON.parse(line).url);
      }
    });
    child.on("exit", (code) => fail(new Error(`${script} exited with ${code}`)));
  });
}

let factorioCom, portal;
try {
  [factorioCom, portal] = await Promise.all([
    startDouble("tests/fake-factorio-com/main.ts", ["--cache-dir", join(DEMO, "factorio-com-cache")]),
    startDouble("tests/fake-portal/main.ts"),
  ]);
} catch (e) {
  console.error(`The demo's stand-ins for factorio.com and the mod portal did not start: ${e.message}`);
  stopAll("SIGTERM");
  process.exit(1);
}

const args = [
  "--data-dir",
  DATA,
  "--factorio-dir",
  FACTORIO,
  "--bind",
  "127.0.0.1",
  "--factorio-com-url",
  factorioCom,
  "--factorio-update-check-hours",
  "0",
  "--mod-portal-url",
  portal,
  "--auth-url",
  portal,
  ...process.argv.slice(2),
];
const child = spawnPanel(args, { stdio: ["inherit", "pipe", "inherit"] });
children.push(child);
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  if (!/listening on/.test(String(d))) return;
  const pwFile = join(DATA, "initial-admin-password");
  const hint = existsSync(pwFile)
    ? `Sign in as admin with the password in ${pwFile}:\n  ${readFileSync(pwFile, "utf8").trim()}`
    : "Sign in as admin with the password you chose.";
  console.log(`\nDemo: a simulated Factorio ${version} server in ${FACTORIO}.\n${hint}`);
  console.log("In the console, try /players, /time, /fake-join alice, /fake-chat alice hello, /fake-crash.");
  console.log(
    `Nothing leaves this machine: factorio.com is a stand-in at ${factorioCom} (Controls: Check for updates, Install),\n` +
      `the mod portal one at ${portal} (Mods: log in as engineer / correct horse battery).\n`,
  );
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stopAll(signal));
child.on("exit", (code, signal) => {
  stopAll("SIGTERM");
  process.exit(code ?? (signal ? 1 : 0));
});
