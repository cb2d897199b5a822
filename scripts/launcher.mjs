// The one place that knows how the panel is started: the Deno binary, its permissions, the entry point,
// the open-file limit and the environment. `npm start`, `npm run demo`, the test runner (deno test gets
// exactly these permissions), the Playwright fixtures and the benchmarks all come through here, so no
// test can have a permission that a user's `npm start` lacks. Node built-ins only: this runs before
// `npm install` has, and Deno imports it too (tests/support/process.ts).

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");
export const DENO = join(ROOT, "node_modules", ".bin", "deno");
export const PANEL_ENTRY = join(ROOT, "backend", "main.ts");

/**
 * The panel's permissions: the narrowest set that works. Not --allow-all: reading /proc (and other
 * "sensitive" paths) then stays refused, so the panel must not depend on it.
 * - net: its own server, the mod portal, push services, factorio.com, the game's RCON on 127.0.0.1
 * - read, write: the data dir and the Factorio dir (both configurable, so not narrowed by path)
 * - env: PANEL_* configuration
 * - run: the game itself, `sh` to start it detached, `ps` to tell whether a pid is still the game, `tar`
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

/** `deno run` arguments that start the panel with `args` (the panel's own flags). */
export function panelDenoArgs(args = []) {
  return ["run", ...PANEL_PERMISSIONS, "--no-prompt", PANEL_ENTRY, ...args];
}

/**
 * Runs before Deno, in sh: the open-file soft limit raised to the hard limit (each connection holds a
 * file, and a distribution's default soft limit of 1024 is far below what the system allows), and no
 * update check (Deno would otherwise ask dl.deno.land for a newer release).
 */
const PREPARE = 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; export DENO_NO_UPDATE_CHECK=1; exec "$0" "$@"';

/** The program and arguments that start the panel with `args` (the panel's own flags). */
export function panelCommand(args = []) {
  return { cmd: "sh", args: ["-c", PREPARE, DENO, ...panelDenoArgs(args)] };
}

/** `deno test` arguments: the same permissions as the panel, never more. */
export function denoTestArgs(extra = []) {
  return ["test", ...PANEL_PERMISSIONS, "--no-prompt", ...extra];
}

/** Starts the panel as a child process (stdio and env as given). */
export function spawnPanel(args = [], opts = {}) {
  const command = panelCommand(args);
  return spawn(command.cmd, command.args, { cwd: ROOT, ...opts });
}
