// Game server control and the game's log: status, version, start, save & stop, restart, kill, log tail and download.
// Start, stop and restart go through the queue of game operations (ctx.gameOps), so they never run into a
// scheduled task or an update; kill does not wait for anything.

import type { AppContext } from "../boot/context.ts";
import { gameLogFile, gameLogTail } from "../factorio/game/hub.ts";
import { contentDisposition } from "./download.ts";
import { Conflict, Invalid, Locked, NotFound } from "../lib/errors.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import type { StartRequest } from "../../shared/api.ts";
import { firstError, portNumber, validateStart } from "../../shared/validation.ts";
import { jsonText, reply, type Route, route, sessionOf } from "./routes.ts";

/** Parses and checks a start request with the words of the start form (shared/validation.ts). */
export function parseStartRequest(body: Record<string, unknown>): StartRequest {
  const problem = firstError(validateStart(body));
  if (problem) throw new Invalid(problem);
  return {
    bindip: String(body.bindip).trim(),
    port: portNumber(body.port),
    savefile: String(body.savefile).trim(),
  };
}

/** Lines GET /api/log/tail answers by default, and at most (?lines=N). */
export const LOG_TAIL_DEFAULT = 1000;
export const LOG_TAIL_MAX = 10_000;

export function serverRoutes(ctx: AppContext): Route[] {
  const { game } = ctx;
  // Stop and kill are GETs in the old API; they change state, so they get the cross-site guard.
  const control = (
    key: "GET /api/server/stop" | "GET /api/server/kill",
    what: string,
    act: () => Promise<{ status: number; message: string }>,
  ): Route =>
    route(key, async (c) => {
      ctx.log.info(`${what} requested`, { user: sessionOf(c).user.username });
      const { status, message } = await act();
      return reply(c, message, status as 200 | 202);
    });
  return [
    // The JSON text kept until something in it changes (GameServer.statusJson).
    route("GET /api/server/status", () => jsonText(game.statusJson())),
    route("GET /api/server/facVersion", async () => await game.versionInfo()),
    route("POST /api/server/start", async (c, { body }) => {
      // The old API's answer to a start while the game runs (its ServerOff routes): 423.
      if (ctx.serverState() !== "stopped") throw new Locked(PANEL_MSG.serverNotStopped);
      const request = parseStartRequest(body);
      // Two servers' games on one port: the second would fail to host; say which server has it.
      const other = ctx.servers.runningOn(request.port, c.get("server")?.id ?? FIRST_SERVER);
      if (other) throw new Conflict(SERVERS_MSG.portOfServer(request.port, other));
      ctx.log.info("Start requested", {
        user: sessionOf(c).user.username,
        save: request.savefile,
        port: request.port,
      });
      const { status, message } = await ctx.gameOps.run(
        "start",
        () => game.start(request, { remember: true }),
      );
      return reply(c, message, status as 200 | 202);
    }),
    control("GET /api/server/stop", "Save & stop", () => ctx.gameOps.run("save & stop", () => game.stop())),
    control("GET /api/server/kill", "Kill", () => game.kill()),
    route("POST /api/server/restart", async (c) => {
      ctx.log.info("Restart requested", { user: sessionOf(c).user.username });
      const { status, message } = await ctx.gameOps.run("a restart", () => game.restart(), {
        restarts: true,
      });
      return reply(c, message, status as 200 | 202);
    }),
    route("GET /api/log/tail", async (c) => {
      const asked = Number(c.req.query("lines") ?? LOG_TAIL_DEFAULT);
      const count = Number.isInteger(asked) && asked > 0 ? Math.min(asked, LOG_TAIL_MAX) : LOG_TAIL_DEFAULT;
      return await gameLogTail(game, count);
    }),
    // The whole log, streamed from the file (the Logs page's Download).
    route("GET /api/log/download", async () => {
      const body = await gameLogFile(game);
      if (!body) throw new NotFound("There is no log yet: the game has not run.");
      return new Response(body, {
        headers: {
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Disposition": contentDisposition("factorio-current.log"),
        },
      });
    }),
  ];
}
