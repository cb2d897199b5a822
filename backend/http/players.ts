// The player lists (admins, whitelist, bans, the whitelist switch), who is online, and kicking. The history
// of who played when is in playerhistory.ts.

import type { AppContext } from "../boot/context.ts";
import type { PlayerList } from "../../shared/players.ts";
import { type Route, route } from "./routes.ts";

export function playerRoutes(ctx: AppContext): Route[] {
  const { players } = ctx;
  const listRoutes = (list: PlayerList): Route[] => [
    route(
      `POST /api/players/${list}/add`,
      async (_c, { body }) =>
        await players.add(list, body.username, "reason" in body ? body.reason : undefined),
    ),
    route(
      `POST /api/players/${list}/remove`,
      async (_c, { body }) => await players.remove(list, body.username),
    ),
  ];
  return [
    route("GET /api/players", () => players.lists()),
    ...listRoutes("admins"),
    ...listRoutes("whitelist"),
    ...listRoutes("bans"),
    route("POST /api/players/whitelist/use", async (_c, { body }) => players.setUseWhitelist(body.enabled)),
    route("GET /api/players/online", async () => ({ players: await players.online() })),
    route("POST /api/players/kick", async (_c, { body }) => {
      return await players.kick(body.username, body.reason);
    }),
  ];
}
