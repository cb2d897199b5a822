// Entry point: `deno run ... backend/main.ts [options]` (scripts/launcher.mjs says how the panel is started).

import { main } from "./boot/run.ts";

if (import.meta.main) {
  const code = await main();
  if (code !== 0) Deno.exit(code);
}
