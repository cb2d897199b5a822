// `npm start`: installs what is missing, builds the web app if its sources changed, then runs the panel,
// and runs it again if it ends unexpectedly. Arguments after `--` go to the panel, e.g.
// `npm start -- --port 9000`.
//
// Started again: any exit but a clean stop (code 0, as after SIGINT or SIGTERM) and a configuration error
// (code 2: the same command would fail the same way), after 1 s, doubling up to 30 s, back to 1 s once a
// run lasted a minute. The game is not the panel's child: it keeps running, and the next panel finds it.
// Not for a command that does its work and ends (--export, an import, --dry-run, --help).

import { buildPwa, ensureDeps } from "./lib.mjs";
import { spawnPanel } from "./launcher.mjs";

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
/** A run this long counts as healthy: the next restart waits FIRST_DELAY_MS again. */
const HEALTHY_MS = 60_000;

const args = process.argv.slice(2);
const once = args.some((a) => /^--(help|export|import|import-fsm|dry-run)(=|$)/.test(a) || a === "-h");
ensureDeps();
if (!args.includes("--help") && buildPwa({ onlyIfStale: true }) !== 0) {
  console.error("Building the web app failed; see above.");
  process.exit(1);
}

let child = null;
let stopping = false;
let delay = FIRST_DELAY_MS;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopping = true;
    if (child) child.kill(signal);
    else process.exit(0);
  });
}

function run() {
  const started = Date.now();
  child = spawnPanel(args, { stdio: "inherit" });
  child.on("exit", (code, signal) => {
    child = null;
    if (stopping || once || code === 0 || code === 2) process.exit(code ?? (signal ? 1 : 0));
    if (Date.now() - started >= HEALTHY_MS) delay = FIRST_DELAY_MS;
    const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
    console.error(`factorio-panel: the panel ${how}; starting it again in ${delay / 1000} s`);
    setTimeout(() => {
      if (!stopping) run();
    }, delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  });
}
run();
