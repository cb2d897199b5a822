// `npm run demo`: the panel on a simulated Factorio server, for trying it without the game.
// Installs the simulator (tests/fake-factorio) into demo-data/factorio, creates a first save when there
// is none, and starts the panel on 127.0.0.1 with its data in demo-data/panel. Arguments after `--` go
// to the panel (e.g. `npm run demo -- --port 9000`); DEMO_FACTORIO_VERSION=1.1|2.0|2.1 picks the game.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildPwa, ensureDeps } from "./lib.mjs";
import { DENO, PANEL_PERMISSIONS, ROOT, spawnPanel } from "./launcher.mjs";

const DEMO = join(ROOT, "demo-data");
const FACTORIO = join(DEMO, "factorio");
const DATA = join(DEMO, "panel");
const version = process.env.DEMO_FACTORIO_VERSION ?? "2.0";

ensureDeps();
if (buildPwa({ onlyIfStale: true }) !== 0) {
  console.error("Building the web app failed; see above.");
  process.exit(1);
}

const binary = join(FACTORIO, "bin", "x64", "factorio");
if (!existsSync(binary)) {
  const r = spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "tests/fake-factorio/install.ts", FACTORIO, version], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const saves = join(FACTORIO, "saves");
if (!readdirSync(saves).some((n) => n.endsWith(".zip"))) {
  console.log("Creating a first save (demo-world.zip)...");
  const r = spawnSync(binary, ["--create", join(saves, "demo-world.zip")], { cwd: FACTORIO, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const args = ["--data-dir", DATA, "--factorio-dir", FACTORIO, "--bind", "127.0.0.1", ...process.argv.slice(2)];
const child = spawnPanel(args, { stdio: ["inherit", "pipe", "inherit"] });
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  if (!/listening on/.test(String(d))) return;
  const pwFile = join(DATA, "initial-admin-password");
  const hint = existsSync(pwFile)
    ? `Sign in as admin with the password in ${pwFile}:\n  ${readFileSync(pwFile, "utf8").trim()}`
    : "Sign in as admin with the password you chose.";
  console.log(`\nDemo: a simulated Factorio ${version} server in ${FACTORIO}.\n${hint}`);
  console.log("In the console, try /players, /time, /fake-join alice, /fake-chat alice hello, /fake-crash.\n");
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
