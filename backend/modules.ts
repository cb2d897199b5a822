// The modules the panel loads after it has started serving: the live side, the services, the game's
// routes and the other route areas. Each is loaded by later() (later.ts), so Deno does not read them,
// nor all they import, before the panel runs: start-up reads only what the first answer needs (75
// modules of ~200). run.ts reads them all right after the first answer, while the connection gate still
// holds connections to a few (readServingModules), so a flood cannot hold every open file while Deno
// reads them: a module that failed to load stays failed for the life of the process.

import { later } from "./later.ts";

export const liveModule = () => import(later("./live.ts")) as Promise<typeof import("./live.ts")>;
export const servicesModule = () => import(later("./services.ts")) as Promise<typeof import("./services.ts")>;
export const gameRoutesModule = () => import(later("./http/server.ts")) as Promise<typeof import("./http/server.ts")>;
export const areasModule = () => import(later("./http/areas.ts")) as Promise<typeof import("./http/areas.ts")>;

/** Loads every one of them (Deno reads each once; a later import of one is answered from memory). */
export async function readServingModules(): Promise<void> {
  await Promise.all([liveModule(), servicesModule(), gameRoutesModule(), areasModule()]);
}
