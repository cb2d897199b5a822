// Game server control and the game's log: status, version, start, save & stop, kill, log tail.

import { existsSync } from "node:fs";
import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Route } from "./routes.ts";
import { sessionOf } from "./routes.ts";
import { gameLogTail, parseStartRequest } from "../factorio/process.ts";

/** Lines GET /api/log/tail answers by default, and at most (?lines=N). */
export const LOG_TAIL_DEFAULT = 1000;
export const LOG_TAIL_MAX = 10_000;

export function serverRoutes(ctx: AppContext): Route[] {
  const { game } = ctx;
  // Stop and kill are GETs in the old API; they change state, so they get the cross-site guard.
  const control = (path: string, what: string, act: () => Promise<{ status: number; message: string }>): Route => ({
    method: "GET",
    path,
    changesState: true,
    handler: async (c) => {
      ctx.log.info(`${what} requested`, { user: sessionOf(c).user.username });
      const { status, message } = await act();
      return c.json(message, status as 200 | 202);
    },
  });
  return [
    {
      method: "GET",
      path: "/api/server/status",
      // Whether the game is where the panel looks, so Controls can say so before an action fails.
      handler: (c) => c.json({ ...game.status(), factorio_found: existsSync(ctx.config.factorioBinary), factorio_dir: ctx.config.factorioDir }),
    },
    {
      method: "GET",
      path: "/api/server/facVersion",
      handler: async (c) => c.json(await game.versionInfo()),
    },
    {
      method: "POST",
      path: "/api/server/start",
      requiresStopped: true,
      handler: async (c) => {
        const request = parseStartRequest(await readObject(c));
        ctx.saves.assertNotCreating();
        ctx.log.info("Start requested", { user: sessionOf(c).user.username, save: request.savefile, port: request.port });
        const { status, message } = await game.start(request);
        return c.json(message, status as 200 | 202);
      },
    },
    control("/api/server/stop", "Save & stop", () => game.stop()),
    control("/api/server/kill", "Kill", () => game.kill()),
    {
      method: "GET",
      path: "/api/log/tail",
      handler: async (c) => {
        const asked = Number(c.req.query("lines") ?? LOG_TAIL_DEFAULT);
        const count = Number.isInteger(asked) && asked > 0 ? Math.min(asked, LOG_TAIL_MAX) : LOG_TAIL_DEFAULT;
        return c.json(await gameLogTail(game, count));
      },
    },
  ];
}
