// The HTTP application: one Hono app with every route of the table, /ws and the built PWA. Every request
// passes one chain: the host check, the client and its session (front), then per route the cross-site
// check, the role, the game-stopped rule and the activity record, and one error handler that turns typed
// errors into JSON string answers.

import { Hono } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { MiddlewareHandler } from "hono";
import { type AppContext, serverContext } from "../boot/context.ts";
import { changesState, type Ctx, type Env, type Input, type Route } from "./routes.ts";
import { readInput } from "./body.ts";
import {
  authorize,
  clientOf,
  fromOwnSite,
  hostRefusal,
  jsonMessage,
  overTls,
  requestSession,
} from "./guards.ts";
import { activityRoutes, recordActivity } from "./activity.ts";
import { secondFactorRoutes } from "./secondfactor.ts";
import { areaOfPath, HttpError, isNoSpace } from "../lib/errors.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { authRoutes } from "./auth.ts";
import { userRoutes } from "./users.ts";
import { serverRoutes } from "./server.ts";
import { saveRoutes } from "./saves.ts";
import { modRoutes } from "./mods.ts";
import { modSettingsRoutes } from "./modsettings.ts";
import { worldRoutes } from "./world.ts";
import { settingsRoutes } from "./settings.ts";
import { playerRoutes } from "./players.ts";
import { pushRoutes } from "./push.ts";
import { versionRoutes } from "./versions.ts";
import { backupRoutes } from "./backups.ts";
import { scheduleRoutes } from "./schedules.ts";
import { alertRoutes } from "./alerts.ts";
import { playerHistoryRoutes } from "./playerhistory.ts";
import { accessRoutes } from "./access.ts";
import { passkeyRoutes } from "./passkeys.ts";
import { transferRoutes } from "./transfer.ts";
import { caDownload, httpsRoutes } from "./https.ts";
import { CA_DOWNLOAD_PATH } from "../../shared/https.ts";
import { referenceRoutes } from "./reference.ts";
import { staticHandler } from "./static.ts";
import { healthRoutes, metricsHandler, publicStatusHandler } from "./health.ts";
import { serversRoutes } from "./servers.ts";
import { isServerRoute } from "../../shared/contract/index.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import type { Server } from "../servers/build.ts";

/** Every area's routes, built from the context. */
const AREAS: ((ctx: AppContext) => Route[])[] = [
  authRoutes,
  userRoutes,
  activityRoutes,
  secondFactorRoutes,
  serverRoutes,
  saveRoutes,
  modRoutes,
  modSettingsRoutes,
  worldRoutes,
  settingsRoutes,
  playerRoutes,
  pushRoutes,
  versionRoutes,
  backupRoutes,
  scheduleRoutes,
  alertRoutes,
  playerHistoryRoutes,
  accessRoutes,
  passkeyRoutes,
  transferRoutes,
  httpsRoutes,
  referenceRoutes,
  healthRoutes,
  serversRoutes,
];

/** A per-server route's path under /api/servers/{id}: "/api/saves/list" -> "/api/servers/:server/saves/list". */
const SERVER_PREFIX = "/api/servers/:server{[0-9]+}";
const underServer = (path: string) => SERVER_PREFIX + path.slice("/api".length);

// An answer carries the headers that act on it. Referrer-Policy and X-Frame-Options act on documents
// only; an API answer is never one. X-Factorio-Panel tells the PWA an error is the panel's own, not a
// reverse proxy's 502 while the panel is down, so errors and documents carry it.
const DOCUMENT_HEADERS = {
  "X-Factorio-Panel": "1",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};
const API_HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };
const API_ERROR_HEADERS = { ...API_HEADERS, "X-Factorio-Panel": "1" };
const API_OWN_CACHE_HEADERS = { "X-Content-Type-Options": "nosniff", "X-Factorio-Panel": "1" };

function headersFor(api: boolean, res: Response): Record<string, string> {
  if (!api) return DOCUMENT_HEADERS;
  if (res.headers.has("Cache-Control")) return API_OWN_CACHE_HEADERS;
  return res.status >= 400 ? API_ERROR_HEADERS : API_HEADERS;
}

export interface PanelApp {
  app: Hono<Env>;
  /** Every API route: the table the tests walk. */
  routes: Route[];
}

/** The route's answer: its input checked at the edge, then its handler's value as JSON (or its Response). */
/** The input of a route that reads neither a body nor a query (most reads). */
const NO_INPUT = { body: undefined, query: undefined };

async function answer(c: Ctx, route: Route): Promise<Response> {
  const input = route.def.body || route.def.query
    ? await readInput(c, route.def, route.domainChecked)
    : NO_INPUT;
  const result = await route.handler(c, input as Input<never>);
  return result instanceof Response ? result : c.json(result as never);
}

export function createApp(ctx: AppContext): PanelApp {
  const app = new Hono<Env>();
  // The table: every route once, per-server routes as server 1's (at /api/R).
  const routes = AREAS.flatMap((area) => area(ctx));
  // Per-server routes of the other servers: their handlers built on the server's context, once per
  // Server object (a server built again after a port change gets new ones).
  const built = new WeakMap<Server, Map<string, Route>>();
  const routesOf = (server: Server): Map<string, Route> => {
    let table = built.get(server);
    if (!table) {
      const sctx = serverContext(ctx, server);
      table = new Map(
        AREAS.flatMap((area) => area(sctx)).filter((r) => isServerRoute(r.key)).map((r) => [r.key, r]),
      );
      built.set(server, table);
    }
    return table;
  };

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      const res = jsonMessage(err.message, err.status);
      for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
      return res;
    }
    if (isNoSpace(err)) {
      // 507: the disk is full; the message says where, so the admin knows what to free.
      ctx.log.error("No space left on the device", {
        method: c.req.method,
        path: c.req.path,
        error: String(err),
      });
      return jsonMessage(PANEL_MSG.noSpace(areaOfPath(c.req.path)), 507);
    }
    ctx.log.error("Unhandled error", {
      method: c.req.method,
      path: c.req.path,
      error: String(err?.stack ?? err),
    });
    return jsonMessage(PANEL_MSG.internalError, 500);
  });

  // The front of every request: the host (DNS rebinding), the client, and for the API and /ws the
  // session; on the way out, the headers of its kind.
  const hostRefused = hostRefusal(ctx.config, () => ctx.https.hostNames());
  const clientOfRequest = clientOf(ctx.config);
  const sessionOfRequest = requestSession(ctx.access);
  app.use(async (c, next) => {
    const api = c.req.path.startsWith("/api/");
    const refused = hostRefused(c.req.raw);
    if (refused) {
      c.res = refused;
    } else {
      const client = clientOfRequest(c.req.raw, c.env);
      c.set("clientAddress", client.address);
      c.set("secure", client.secure);
      c.set("session", null);
      // /metrics takes an API token too (Prometheus' bearer_token).
      const resolved = api || c.req.path === "/ws" || c.req.path === "/metrics"
        ? sessionOfRequest(c, client.address)
        : { session: null };
      if ("refuse" in resolved) c.res = jsonMessage(resolved.refuse.message, resolved.refuse.status);
      else {
        c.set("session", resolved.session);
        await next();
      }
    }
    // A WebSocket's 101 stays as Deno made it.
    if (c.res.status === 101) return;
    for (const [k, v] of Object.entries(headersFor(api, c.res))) c.res.headers.set(k, v);
    // HSTS only on answers that came over TLS, and only for a public CA's certificate (https/manager.ts).
    const hsts = overTls(c.req.raw) ? ctx.https.hsts() : null;
    if (hsts) c.res.headers.set("Strict-Transport-Security", hsts);
  });

  for (const route of routes) {
    const perServer = isServerRoute(route.key);
    const guard: MiddlewareHandler<Env> = (c) => {
      const session = c.get("session");
      // A bearer token is never sent by a browser on its own (no cookie comes with it, the loader refuses
      // both at once), so the cross-site rule is for cookie sessions only.
      if (changesState(route) && session?.via !== "token" && !fromOwnSite(c, ctx.config)) {
        ctx.log.warn("Refused a cross-site request", { method: route.method, path: c.req.path });
        return Promise.resolve(c.json(PANEL_MSG.crossSiteRefused, 403));
      }
      if (route.public) return answer(c, route);
      if (!session) return Promise.resolve(c.json(PANEL_MSG.notSignedIn, 401));
      if (!perServer) {
        const refusal = authorize(route, session);
        if (refusal) return Promise.resolve(c.json(refusal, 403));
        // A panel-wide change of server 1's files (an import) holds its directory too.
        if (route.requiresStopped) {
          return ctx.game.whileStopped(route.requiresStopped, () => answer(c, route));
        }
        return answer(c, route);
      }
      // A per-server route: /api/R is server 1, /api/servers/{id}/R server id. A server the caller has no
      // role on is not there for them (404, as for an id that does not exist).
      const id = Number(c.req.param("server") ?? FIRST_SERVER);
      const server = ctx.servers.get(id);
      const role = server ? ctx.roleOn(session, id) : null;
      if (!server || role === null) return Promise.resolve(c.json(SERVERS_MSG.noSuchServer(id), 404));
      const refusal = authorize(route, session, role);
      if (refusal) return Promise.resolve(c.json(refusal, 403));
      c.set("server", server);
      const handled = id === FIRST_SERVER ? route : routesOf(server).get(route.key)!;
      const label = route.requiresStopped;
      if (label) return server.game.whileStopped(label, () => answer(c, handled));
      return answer(c, handled);
    };
    const paths = perServer ? [route.path, underServer(route.path)] : [route.path];
    // State changes are recorded once their answer is known, refusals and errors included; reads are not.
    for (const path of paths) {
      if (changesState(route)) {
        app.on(route.method, path, recordActivity(ctx.activity, route, ctx.log.warn), guard);
      } else app.on(route.method, path, guard);
    }
  }

  app.get(
    "/ws",
    async (c, next) => {
      if (c.get("session")?.via !== "token" && !fromOwnSite(c, ctx.config)) {
        return c.json(PANEL_MSG.crossSiteRefused, 403);
      }
      if (!c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
        return c.json("Expected a WebSocket upgrade", 426);
      }
      return await next();
    },
    upgradeWebSocket((c) => {
      const session = c.get("session")!;
      return ctx.hub.events(session, {
        address: c.get("clientAddress"),
        userAgent: c.req.header("user-agent") ?? "",
        // Re-read before each command: a role change or revoke counts at once, not at the next connect.
        current: () => ctx.access.refresh(session),
      });
    }),
  );

  app.get(CA_DOWNLOAD_PATH, caDownload(ctx));

  // Server health outside the API: Prometheus' scrape and the opt-in public status (no session needed).
  app.get("/metrics", metricsHandler(ctx));
  app.get("/status/:file", publicStatusHandler(ctx));

  // What no route has: other API paths (the same 401 as everything else without a session, a JSON 404
  // with one) and the PWA's files.
  const serveStatic = staticHandler(ctx.config.staticDir);
  app.notFound((c: Ctx) => {
    if (c.req.path.startsWith("/api/")) {
      if (!c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
      return c.json(`No such API route: ${c.req.method} ${c.req.path}`, 404);
    }
    return c.req.method === "GET" || c.req.method === "HEAD" ? serveStatic(c) : c.text("404 Not Found", 404);
  });

  return { app, routes };
}
