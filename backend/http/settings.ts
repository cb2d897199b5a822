// Server settings (server-settings.json) and the game's config.ini.

import type { AppContext } from "../boot/context.ts";
import { readConfigIni } from "../factorio/settings/configini.ts";
import { Forbidden } from "../lib/errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { isSecretSetting, SECRET_MASK } from "../../shared/settings.ts";
import { type Route, route, sessionOf } from "./routes.ts";

/** Whether an update would set a secret to something other than its stored value. */
function changesSecret(body: Record<string, unknown>, stored: Record<string, unknown>): boolean {
  return Object.entries(body).some(([k, v]) =>
    isSecretSetting(k) && v !== SECRET_MASK && v !== (stored[k] ?? "")
  );
}

export function settingsRoutes(ctx: AppContext): Route[] {
  const { settings } = ctx;
  return [
    route("GET /api/settings", () => settings.get()),
    route("POST /api/settings/update", async (c, { body }) => {
      // Operators run the server but may not read or replace its passwords and tokens (factorio.com
      // account, game password): the values come back masked, and changing one needs an admin.
      if (sessionOf(c).role !== "admin" && changesSecret(body, settings.readStored().value)) {
        throw new Forbidden(ACCESS_MSG.secretsNeedAdmin);
      }
      await settings.update(body);
      return "Settings successfully saved";
    }),
    route("GET /api/config", () => readConfigIni(ctx.paths.configIni)),
  ];
}
