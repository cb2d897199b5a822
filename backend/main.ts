// Entry point. It starts listing the machine's processes (to find a game this panel did not start) and
// only then loads the panel itself (run.ts): the `ps` runs while the panel's ~120 modules load, instead
// of start-up waiting for it later. Both are string-literal imports, so `deno compile` includes them.

import { listProcessesEarly } from "./factorio/game/liveness.ts";

if (import.meta.main) {
  listProcessesEarly();
  const { main } = await import("./run.ts");
  const code = await main();
  if (code !== 0) Deno.exit(code);
}
