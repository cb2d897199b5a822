// The one place that knows how the panel is started: the Deno binary, its permissions and the entry
// point. `npm start`, `npm run demo`, the test runner (deno test gets exactly these permissions), the
// Playwright fixtures and the benchmarks all come through here, so no test can have a permission that a
// user's `npm start` lacks. Node built-ins only: this runs before `npm install` has, and Deno imports it
// too (backend/testing/process.ts).

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { bundledEntry } from "./bundle.mjs";

export const ROOT = resolve(import.meta.dirname, "..");
export const DENO = join(ROOT, "node_modules", ".bin", "deno");
export const PANEL_ENTRY = join(ROOT, "backend", "main.ts");

/**
 * The modules of --export, --import and --import-fsm, loaded by `import(later(...))` (backend/later.ts),
 * which Deno does not read ahead at start-up and deno compile does not find on its own: `npm run compile`
 * includes them by name. backend/later_test.ts fails when a call and this list disagree.
 */
export const PANEL_LATER_MODULES = [
  "backend/transfer/cli.ts",
  "backend/migrate/targets.ts",
  "backend/live.ts",
  "backend/services.ts",
  "backend/http/server.ts",
  "backend/http/areas.ts",
];

/**
 * The panel's permissions: the narrowest set that works. Not --allow-all: reading /proc (and other
 * "sensitive" paths) then stays refused, so the panel must not depend on it.
 * - net: its own server, the mod portal, push services, factorio.com, the game's RCON on 127.0.0.1
 * - read, write: the data dir and the Factorio dir (both configurable, so not narrowed by path)
 * - env: PANEL_* configuration
 * - run: the game itself, `sh` to start it detached, `ps` to tell whether a pid is still the game, `tar`,
 *   `df` for the free disk space (Deno has no statfs)
 * - sys: network interfaces (the address players use), uptime (process start times), hostname
 */
export const PANEL_PERMISSIONS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
];

/** Where the backend's bundles are built (scripts/bundle.mjs); not committed. */
export const BUNDLE_DIR = join(ROOT, ".build", "backend");
/** What a bundle is built from: a change to any of these builds a new one. */
const BUNDLE_INPUTS = ["backend", "shared", "scripts/bundle.mjs", "scripts/launcher.mjs", "deno.json", "package-lock.json"];

let entry = null;
/**
 * The file `deno run` starts: the bundle of the backend (scripts/bundle.mjs), built first if a source
 * changed, or backend/main.ts itself when it cannot be built (said on stderr). Found once a process: a
 * test run or a bench starts many panels from sources that do not change meanwhile.
 */
export function panelEntry() {
  entry ??= bundledEntry({
    root: ROOT,
    deno: DENO,
    entries: [PANEL_ENTRY, ...PANEL_LATER_MODULES].map((m) => resolve(ROOT, m)),
    inputs: BUNDLE_INPUTS,
    outBase: BUNDLE_DIR,
    onBuild: () => console.error("Bundling the backend (its sources changed)..."),
    onError: (why) => console.error(`factorio-panel: running from the sources, as the backend could not be bundled: ${why}`),
  }) ?? PANEL_ENTRY;
  return entry;
}

/**
 * `deno run` arguments that start the panel with `args` (the panel's own flags), from `entry`: the
 * bundle, or PANEL_ENTRY for a bench's reference start from the sources.
 */
export function panelDenoArgs(args = [], entry = panelEntry()) {
  return ["run", ...PANEL_PERMISSIONS, "--no-prompt", entry, ...args];
}

/** `deno test` arguments: the same permissions as the panel, never more. */
export function denoTestArgs(extra = []) {
  return ["test", ...PANEL_PERMISSIONS, "--no-prompt", ...extra];
}

/** Starts the panel as a child process (stdio and env as given). */
export function spawnPanel(args = [], opts = {}) {
  return spawn(DENO, panelDenoArgs(args), { cwd: ROOT, ...opts });
}
