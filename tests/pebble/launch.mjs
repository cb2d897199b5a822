// Starts pebble, the ACME CA of the tests (main.ts, backend/testing/pebble.ts), as its own Deno process.
// Plain JavaScript so both Playwright specs and bench/*.mjs (Node) can use it.

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";

const ROOT = resolve(import.meta.dirname, "../..");

/** @returns {Promise<{ args: string[], root: string, stop(): Promise<void> }>} the panel's flags for it, the
 * root that signs its certificates (PEM), and how to stop it. */
export async function startPebbleProcess() {
  const child = spawn(join(ROOT, "node_modules/.bin/deno"), ["run", ...PANEL_PERMISSIONS, "tests/pebble/main.ts"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const info = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`pebble did not start:\n${out}`)), 60_000);
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line));
      }
    });
    child.on("exit", (code) => fail(new Error(`pebble exited with ${code}:\n${out}`)));
  });
  return {
    ...info,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
