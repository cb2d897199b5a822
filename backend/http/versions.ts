// Game versions: what factorio.com offers and what is installed, install (with cancel), activate,
// delete, the update check, and update (& restart). Installs and updates answer 202 once they are under
// way; their progress and outcome go to the "factorio_versions" /ws room.

import type { AppContext } from "../boot/context.ts";
import { Invalid } from "../lib/errors.ts";
import { EXACT_VERSION } from "../../shared/factorio-versions.ts";
import { reply, type Route, route, sessionOf } from "./routes.ts";

export function versionRoutes(ctx: AppContext): Route[] {
  const { versions, updater } = ctx;
  const user = (c: Parameters<Route["handler"]>[0]) => sessionOf(c).user.username;
  return [
    route("GET /api/factorio/versions", async () => await versions.answer()),
    route("POST /api/factorio/install", async (c, { body }) => {
      const { version } = await versions.install(body.version);
      ctx.log.info("Game install requested", { user: user(c), version });
      return reply(c, `Installing Factorio ${version}.`, 202);
    }),
    route("POST /api/factorio/install/cancel", () => versions.cancel()),
    route("POST /api/factorio/activate", async (c, { body }) => {
      ctx.log.info("Game version switch requested", { user: user(c), version: body.version });
      return await versions.activate(body.version);
    }),
    route("DELETE /api/factorio/versions/:version", (c) => {
      const version = c.req.param("version") ?? "";
      if (!EXACT_VERSION.test(version)) {
        throw new Invalid("The version must be an exact version like 2.0.77.");
      }
      return versions.remove(version);
    }),
    route("POST /api/factorio/check", async () => await versions.checkUpdate(true)),
    // The managed update: allowed while the game runs (it warns, saves, stops and starts it itself).
    route("POST /api/factorio/update", async (c, { body }) => {
      const { from, to } = await updater.update(body.version);
      ctx.log.info("Game update requested", { user: user(c), from, to });
      return reply(c, `Updating from Factorio ${from} to ${to}.`, 202);
    }),
    route("POST /api/factorio/update/cancel", (c) => {
      ctx.log.info("Game update cancel requested", { user: user(c) });
      return updater.cancel();
    }),
  ];
}
