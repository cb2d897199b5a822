// Server settings (server-settings.json), the game's config.ini, and the player lists.

import type { AppContext } from "../context.ts";
import type { Route } from "./routes.ts";
import { readObject } from "./body.ts";
import { readConfigIni } from "../factorio/configini.ts";
import type { PlayerList } from "../../shared/players.ts";
import { sessionOf } from "./routes.ts";
import { Forbidden } from "../errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { isSecretSetting, SECRET_MASK } from "../../shared/settings.ts";

/** Whether an update would set a secret to something other than its stored value. */
function changesSecret(body: Record<string, unknown>, stored: Record<string, unknown>): boolean {
  return Object.entries(body).some(([k, v]) => isSecretSetting(k) && v !== SECRET_MASK && v !== (stored[k] ?? ""));
}

export function settingsRoutes(ctx: AppContext): Route[] {
  const { settings, players } = ctx;
  const listRoutes = (list: PlayerList): Route[] => [
    {
      method: "POST",
      path: `/api/players/${list}/add`,
      handler: async (c) => {
        const body = await readObject(c);
        return c.json(await players.add(list, body.username, body.reason));
      },
    },
    {
      method: "POST",
      path: `/api/players/${list}/remove`,
      handler: async (c) => c.json(await players.remove(list, (await readObject(c)).username)),
    },
  ];
  return [
    { method: "GET", path: "/api/settings", handler: (c) => c.json(settings.get()) },
    {
      method: "POST",
      path: "/api/settings/update",
      handler: async (c) => {
        const body = await readObject(c);
        // Operators run the server but may not read or replace its passwords and tokens (factorio.com
        // account, game password): the values come back masked, and changing one needs an admin.
        if (sessionOf(c).role !== "admin" && changesSecret(body, settings.readStored().value)) {
          throw new Forbidden(ACCESS_MSG.secretsNeedAdmin);
        }
        await settings.update(body);
        return c.json("Settings successfully saved");
      },
    },
    { method: "GET", path: "/api/config", handler: (c) => c.json(readConfigIni(ctx.paths.configIni)) },
    { method: "GET", path: "/api/players", handler: (c) => c.json(players.lists()) },
    ...listRoutes("admins"),
    ...listRoutes("whitelist"),
    ...listRoutes("bans"),
    {
      method: "POST",
      path: "/api/players/whitelist/use",
      handler: async (c) => c.json(players.setUseWhitelist((await readObject(c)).enabled)),
    },
    { method: "GET", path: "/api/players/online", handler: async (c) => c.json({ players: await players.online() }) },
    {
      method: "POST",
      path: "/api/players/kick",
      handler: async (c) => {
        const body = await readObject(c);
        return c.json(await players.kick(body.username, body.reason));
      },
    },
  ];
}
