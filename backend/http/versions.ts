// Game versions: what factorio.com offers and what is installed, install (with cancel), activate,
// delete, the update check, and update (& restart). Installs and updates answer 202 once they are under
// way; their progress and outcome go to the "factorio_versions" /ws room.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import { type Route, sessionOf } from "./routes.ts";
import { Invalid } from "../errors.ts";
import { EXACT_VERSION } from "../../shared/factorio-versions.ts";
import { SWITCH_LABEL } from "../factorio/versions/service.ts";

export function versionRoutes(ctx: AppContext): Route[] {
  const { versions, updater } = ctx;
  const user = (c: Parameters<Route["handler"]>[0]) => sessionOf(c).user.username;
  return [
    {
      method: "GET",
      path: "/api/factorio/versions",
      handler: async (c) => c.json(await versions.answer()),
    },
    {
      method: "POST",
      path: "/api/factorio/install",
      requiresStopped: "a game install",
      handler: async (c) => {
        const body = await readObject(c);
        const { version } = await versions.install(body.version);
        ctx.log.info("Game install requested", { user: user(c), version });
        return c.json(`Installing Factorio ${version}.`, 202);
      },
    },
    {
      method: "POST",
      path: "/api/factorio/install/cancel",
      handler: (c) => c.json(versions.cancel()),
    },
    {
      method: "POST",
      path: "/api/factorio/activate",
      requiresStopped: SWITCH_LABEL,
      handler: async (c) => {
        const body = await readObject(c);
        ctx.log.info("Game version switch requested", { user: user(c), version: String(body.version) });
        return c.json(await versions.activate(body.version));
      },
    },
    {
      method: "DELETE",
      path: "/api/factorio/versions/:version",
      requiresStopped: "a game version delete",
      handler: (c) => {
        const version = c.req.param("version") ?? "";
        if (!EXACT_VERSION.test(version)) throw new Invalid("The version must be an exact version like 2.0.77.");
        return c.json(versions.remove(version));
      },
    },
    {
      method: "POST",
      path: "/api/factorio/check",
      handler: async (c) => c.json(await versions.checkUpdate(true)),
    },
    {
      // The managed update: allowed while the game runs (it warns, saves, stops and starts it itself).
      method: "POST",
      path: "/api/factorio/update",
      handler: async (c) => {
        const body = await readObject(c);
        const { from, to } = await updater.update(body.version);
        ctx.log.info("Game update requested", { user: user(c), from, to });
        return c.json(`Updating from Factorio ${from} to ${to}.`, 202);
      },
    },
    {
      method: "POST",
      path: "/api/factorio/update/cancel",
      handler: (c) => {
        ctx.log.info("Game update cancel requested", { user: user(c) });
        return c.json(updater.cancel());
      },
    },
  ];
}
