// `npm run fake-portal`: the mod portal and auth server double (tests/fake-portal), for trying the Mods
// page without a factorio.com account. Deno is the npm-installed one, with the panel's permissions.
// Arguments after `--` go to the double, e.g. `npm run fake-portal -- --port 8090 --extra-mods 500`.

import { spawn } from "node:child_process";
import { ensureDeps } from "./lib.mjs";
import { DENO, PANEL_PERMISSIONS, ROOT } from "./launcher.mjs";

ensureDeps();
const child = spawn(DENO, [
  "run",
  ...PANEL_PERMISSIONS,
  "--no-prompt",
  "tests/fake-portal/main.ts",
  ...process.argv.slice(2),
], {
  cwd: ROOT,
  stdio: ["inherit", "pipe", "inherit"],
});
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  try {
    const { url } = JSON.parse(String(d));
    console.log(
      `\nStart the panel with: npm start -- --mod-portal-url ${url} --auth-url ${url}\n` +
        `Then log in to the mod portal on the Mods page as engineer / correct horse battery.`,
    );
  } catch {
    // not the JSON line: already passed through
  }
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
