// Starts pebble, the ACME CA of the tests (main.ts, tests/support/pebble.ts), as its own Deno process,
// for Playwright specs and bench/*.mjs (Node).

import { startDenoService } from "../launch.mjs";

/** @returns {Promise<{ args: string[], root: string, stop(): Promise<void> }>} the panel's flags for it, the
 * root that signs its certificates (PEM), and how to stop it. */
export async function startPebbleProcess() {
  const { info, stop } = await startDenoService("tests/pebble/main.ts", "pebble");
  return { ...info, stop };
}
