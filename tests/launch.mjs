// Starts a Deno script of the tests (a service double, pebble) as its own process with the panel's
// permissions. Plain JavaScript so both Playwright specs and bench/*.mjs (Node) can use it.

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { PANEL_PERMISSIONS } from "../scripts/launcher.mjs";

const ROOT = resolve(import.meta.dirname, "..");

/**
 * Runs `script` (from the repository root) and resolves, once it prints a line of JSON, with that value and
 * stop() (SIGTERM, then SIGKILL after 5 s). `name` is for the errors.
 * @returns {Promise<{ info: any, stop(): Promise<void> }>}
 */
export async function startDenoService(script, name) {
  const child = spawn(join(ROOT, "node_modules/.bin/deno"), ["run", ...PANEL_PERMISSIONS, script], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const info = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start:\n${out}`)), 60_000);
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line));
      }
    });
    child.on("exit", (code) => fail(new Error(`${name} exited with ${code}:\n${out}`)));
  });
  return {
    info,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
