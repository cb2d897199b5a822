// Player history: each player's sessions summed up, the chat log with search, and how many were online
// over time (the chart on Controls).

import type { AppContext } from "../boot/context.ts";
import { Invalid } from "../lib/errors.ts";
import { type Route, route } from "./routes.ts";

const QUERY_MAX = 200;

export function playerHistoryRoutes(ctx: AppContext): Route[] {
  const { store } = ctx.playerHistory;
  return [
    route("GET /api/players/history", () => store.history(ctx.now())),
    route("GET /api/players/chat", (c) => {
      const q = (c.req.query("q") ?? "").trim();
      if (q.length > QUERY_MAX) throw new Invalid(`The search text must be at most ${QUERY_MAX} characters.`);
      // Chat lines still waiting for their batch are written first: a search sees every line shown.
      ctx.playerHistory.flush();
      return store.searchChat(q);
    }),
    route("GET /api/players/online-counts", (c) => {
      const raw = c.req.query("hours") ?? "24";
      const hours = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
      if (!(hours >= 1 && hours <= 24 * 365)) {
        throw new Invalid("hours must be a whole number from 1 to 8760.");
      }
      return store.counts(ctx.now() - hours * 3600_000);
    }),
  ];
}
