// Player history: each player's sessions summed up, the chat log with search, and how many were online
// over time (the chart on Controls).

import type { AppContext } from "../context.ts";
import type { Route } from "./routes.ts";
import { Invalid } from "../errors.ts";

const QUERY_MAX = 200;

export function playerHistoryRoutes(ctx: AppContext): Route[] {
  const { store } = ctx.playerHistory;
  return [
    {
      method: "GET",
      path: "/api/players/history",
      handler: (c) => c.json(store.history(ctx.now())),
    },
    {
      method: "GET",
      path: "/api/players/chat",
      handler: (c) => {
        const q = (c.req.query("q") ?? "").trim();
        if (q.length > QUERY_MAX) throw new Invalid(`The search text must be at most ${QUERY_MAX} characters.`);
        // Chat lines still waiting for their batch are written first: a search sees every line shown.
        ctx.playerHistory.flush();
        return c.json(store.searchChat(q));
      },
    },
    {
      method: "GET",
      path: "/api/players/online-counts",
      handler: (c) => {
        const raw = c.req.query("hours") ?? "24";
        const hours = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
        if (!(hours >= 1 && hours <= 24 * 365)) throw new Invalid("hours must be a whole number from 1 to 8760.");
        return c.json(store.counts(ctx.now() - hours * 3600_000));
      },
    },
  ];
}
