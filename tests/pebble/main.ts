// Pebble (tests/support/pebble.ts) as a process of its own, for Node (launch.mjs: Playwright specs, benches): prints one
// JSON line ({ args, root }: the panel's flags for it, the root that signs its certificates) and stops
// pebble on SIGTERM.

import { startPebble } from "../support/pebble.ts";

const pebble = await startPebble();
console.log(JSON.stringify({ args: pebble.args, root: await pebble.root() }));
Deno.addSignalListener("SIGTERM", async () => {
  await pebble.stop();
  Deno.exit(0);
});
