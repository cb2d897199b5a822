// The HTTP application: the guards every route gets from the route table, the route modules of each area,
// /ws, the built PWA, and the one error handler that turns typed errors into JSON string answers.

import { Hono } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { AppContext } from "./context.ts";
import { changesState, type Env, type Route } from "./http/routes.ts";
import { clientInfo, fromOwnSite, hostAllowed, loadSession } from "./http/guards.ts";
import { areaOfPath, HttpError, isNoSpace } from "./errors.ts";
import { PANEL_MSG } from "../shared/messages.ts";
import { authRoutes } from "./http/auth.ts";
import { userRoutes } from "./http/users.ts";
import { saveRoutes } from "./http/saves.ts";
import { modRoutes } from "./http/mods.ts";
import { serverRoutes } from "./http/server.ts";
import { settingsRoutes } from "./http/settings.ts";
import { staticHandler } from "./http/static.ts";
import { pushRoutes } from "./http/push.ts";
import { modSettingsRoutes } from "./http/modsettings.ts";
import { worldRoutes } from "./http/world.ts";
import { versionRoutes } from "./http/versions.ts";
import { backupRoutes } from "./http/backups.ts";

/** Every API route of every area. Each area adds its module here. */
export function allRoutes(ctx: AppContext): Route[] {
  return [
    ...authRoutes(ctx),
    ...userRoutes(ctx),
    ...saveRoutes(ctx),
    ...modRoutes(ctx),
    ...modSettingsRoutes(ctx),
    ...worldRoutes(ctx),
    ...serverRoutes(ctx),
    ...settingsRoutes(ctx),
    ...pushRoutes(ctx),
    ...versionRoutes(ctx),
    ...backupRoutes(ctx),
  ];
}

export function createApp(ctx: AppContext): { app: Hono<Env>; routes: Route[] } {
  const app = new Hono<Env>();
  const routes = allRoutes(ctx);

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      // deno-lint-ignore no-explicit-any
      return c.json(err.message, err.status as any);
    }
    if (isNoSpace(err)) {
      // 507: the disk is full; the message says where, so the admin knows what to free.
      ctx.log.error("No space left on the device", { method: c.req.method, path: c.req.path, error: String(err) });
      return c.json(PANEL_MSG.noSpace(areaOfPath(c.req.path)), 507);
    }
    ctx.log.error("Unhandled error", { method: c.req.method, path: c.req.path, error: String(err?.stack ?? err) });
    return c.json(PANEL_MSG.internalError, 500);
  });

  app.use("*", hostAllowed(ctx.config));
  app.use("*", clientInfo(ctx.config));
  app.use("*", async (c, next) => {
    await next();
    // Tells the PWA an answer is the panel's own, not a reverse proxy's 502 while the panel is down.
    c.header("X-Factorio-Panel", "1");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
  });
  app.use("/api/*", loadSession(ctx.accounts));
  app.use("/api/*", async (c, next) => {
    await next();
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  });

  for (const route of routes) {
    const guarded = async (c: Parameters<Route["handler"]>[0]) => {
      if (changesState(route) && !fromOwnSite(c, ctx.config)) {
        ctx.log.warn("Refused a cross-site request", { method: route.method, path: c.req.path });
        return c.json(PANEL_MSG.crossSiteRefused, 403);
      }
      if (!route.public && !c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
      const label = route.requiresStopped;
      if (label) return await ctx.game.whileStopped(label, async () => await route.handler(c));
      return await route.handler(c);
    };
    app.on(route.method, route.path, guarded);
  }

  // Unknown API paths: the same 401 as everything else without a session, a JSON 404 with one.
  app.all("/api/*", (c) => {
    if (!c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
    return c.json(`No such API route: ${c.req.method} ${c.req.path}`, 404);
  });

  app.get(
    "/ws",
    loadSession(ctx.accounts),
    async (c, next) => {
      if (!fromOwnSite(c, ctx.config)) return c.json(PANEL_MSG.crossSiteRefused, 403);
      if (!c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return c.json("Expected a WebSocket upgrade", 426);
      // The gate limits frame sizes only on connections that opened with the upgrade (browsers always do).
      if ((c.env as { webSocketGuarded?: boolean } | undefined)?.webSocketGuarded === false) {
        return c.json("Open the WebSocket on a new connection", 400);
      }
      return await next();
    },
    upgradeWebSocket((c) => ctx.hub.events(c.get("session")!)),
  );

  const serveStatic = staticHandler(ctx.config.staticDir);
  app.get("*", serveStatic);
  app.on("HEAD", "*", serveStatic);

  return { app, routes };
}
