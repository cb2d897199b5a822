// Server settings (server-settings.json), the game's config.ini, and the player lists.

import type { AppContext } from "../context.ts";
import type { Route } from "./routes.ts";
import { readObject } from "./body.ts";
import { readConfigIni } from "../factorio/configini.ts";
import type { PlayerList } from "../../shared/players.ts";

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
        await settings.update(await readObject(c));
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
