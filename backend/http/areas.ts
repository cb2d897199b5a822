// The route modules of every area but the first answers' and the game's own (app.ts): loaded together,
// with what they import, at the first API request the eager app has no route for, and with the services
// they use (services.ts). A cold start then loads and compiles only what the first answers need (~4 MiB
// less memory while nobody uses them). app.ts names it in a string-literal import(): Deno reads it (and
// all it imports) at start-up, so loading it later reads no file, which a flood of connections holding
// every open file cannot then make fail (see later.ts).

import type { AppContext } from "../context.ts";
import type { Route } from "./routes.ts";
import { saveRoutes } from "./saves.ts";
import { modRoutes } from "./mods.ts";
import { modSettingsRoutes } from "./modsettings.ts";
import { worldRoutes } from "./world.ts";
import { settingsRoutes } from "./settings.ts";
import { pushRoutes } from "./push.ts";
import { versionRoutes } from "./versions.ts";
import { backupRoutes } from "./backups.ts";
import { alertRoutes } from "./alerts.ts";
import { playerHistoryRoutes } from "./playerhistory.ts";
import { accessRoutes } from "./access.ts";
import { passkeyRoutes } from "./passkeys.ts";
import { transferRoutes } from "./transfer.ts";
import { httpsRoutes } from "./https.ts";

/** An area's routes, built from the context. */
export type Area = (ctx: AppContext) => Route[];

export const LAZY_AREAS: Area[] = [
  saveRoutes,
  modRoutes,
  modSettingsRoutes,
  worldRoutes,
  settingsRoutes,
  pushRoutes,
  versionRoutes,
  backupRoutes,
  alertRoutes,
  playerHistoryRoutes,
  accessRoutes,
  passkeyRoutes,
  transferRoutes,
  httpsRoutes,
];
