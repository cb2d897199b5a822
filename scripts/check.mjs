// `npm run check`: the static checks without running tests: Deno's type check of the backend and shared
// code, the PWA's TypeScript (app and service worker), and over the repository's own sources (deno.json
// says which) Deno's linter, with React's rules (rules of hooks, keys...), and its formatter.
// deno.json leaves out no-window and no-window-prefix: they keep Deno code off `window`, but the app and
// the page scripts of the e2e specs and benchmarks run in a browser, where `window` is the global.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, ensureDeps, run } from "./lib.mjs";
import { DENO, ROOT } from "./launcher.mjs";

ensureDeps();
const steps = [
  ["deno check", DENO, [
    "check",
    "backend/",
    "shared/",
    "tests/fake-factorio/",
    "tests/fake-portal/",
    "tests/fake-push/",
    "tests/smoke/",
    "tests/support/",
  ]],
  ["deno lint", DENO, ["lint"]],
  ["deno fmt --check", DENO, ["fmt", "--check"]],
  ["tsc (pwa)", BIN("tsc"), ["-p", "pwa"]],
];
if (existsSync(join(ROOT, "pwa", "tsconfig.sw.json"))) {
  steps.push(["tsc (service worker)", BIN("tsc"), ["-p", "pwa/tsconfig.sw.json"]]);
}
let failed = 0;
for (const [name, cmd, args] of steps) {
  const code = run(cmd, args);
  console.log(`${name}: ${code === 0 ? "ok" : "FAILED"}`);
  if (code !== 0) failed++;
}
process.exit(failed ? 1 : 0);
