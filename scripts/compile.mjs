// `npm run compile`: one executable with `deno compile`, the built web app embedded (--include pwa/dist).
// It takes the same options as `npm start` and keeps its data in --data-dir (./data by default), so it
// runs the panel without Node or npm on the machine. The web app is found the same way as under npm start:
// <panel>/pwa/dist next to backend/, which --include reproduces inside the executable.
//   npm run compile                 -> dist-bin/factorio-panel
//   npm run compile -- OUTPUT_PATH

import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { buildPwa, ensureDeps } from "./lib.mjs";
import { DENO, PANEL_ENTRY, PANEL_PERMISSIONS, ROOT } from "./launcher.mjs";

ensureDeps();
if (buildPwa({ onlyIfStale: true }) !== 0) {
  console.error("Building the web app failed; see above.");
  process.exit(1);
}
const output = resolve(process.argv[2] ?? join(ROOT, "dist-bin", "factorio-panel"));
mkdirSync(dirname(output), { recursive: true });
const r = spawnSync(
  DENO,
  [
    "compile",
    ...PANEL_PERMISSIONS,
    "--no-prompt",
    "--include",
    join(ROOT, "pwa", "dist"),
    "--output",
    output,
    PANEL_ENTRY,
  ],
  { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
);
const text = `${r.stdout ?? ""}${r.stderr ?? ""}`;
if (r.status === 0) {
  console.log(`Built ${output}: run it with the same options as npm start, e.g. ${output} --port 8080`);
  process.exit(0);
}
const runtime = /https?:\/\/\S*denort\S*/.exec(text)?.[0];
if (runtime) {
  console.error(
    `npm run compile: deno compile must download Deno's runtime (denort) from ${
      runtime.replace(/[:)]+$/, "")
    }, ` +
      "and that download failed (no route to it from this machine). Run it where that address can be reached.",
  );
} else {
  process.stderr.write(text);
  console.error("npm run compile: deno compile failed; see above.");
}
process.exit(1);
