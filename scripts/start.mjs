// `npm start`: installs what is missing, builds the web app if its sources changed, then runs the panel.
// Arguments after `--` go to the panel, e.g. `npm start -- --port 9000`.

import { buildPwa, ensureDeps } from "./lib.mjs";
import { spawnPanel } from "./launcher.mjs";

const args = process.argv.slice(2);
ensureDeps();
if (!args.includes("--help") && buildPwa({ onlyIfStale: true }) !== 0) {
  console.error("Building the web app failed; see above.");
  process.exit(1);
}
const child = spawnPanel(args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
