// The HTTP application: the guards every route gets from the route table, the route modules of each area,
// /ws, the built PWA, and the one error handler that turns typed errors into JSON string answers.

// Hono's base class with the panel's router: `hono` itself also loads the RegExpRouter and SmartRouter
// of its default, which the panel never uses (~1 ms of each start).
import { HonoBase as Hono } from "hono/hono-base";
import { KeptPathRouter } from "./http/router.ts";
import { upgradeWebSocket } from "./http/denows.ts";
import type { AppContext } from "./context.ts";
import { API_HEADERS, changesState, type Ctx, type Env, hasFinalHeaders, type Route } from "./http/routes.ts";
import { authorize, fromOwnSite, hostRefusal, loadSession, sessionOrRefusal, setClientInfo } from "./http/guards.ts";
import { activityRoutes, recordActivity } from "./http/activity.ts";
import { secondFactorRoutes } from "./http/secondfactor.ts";
import { areaOfPath, HttpError, isNoSpace } from "./errors.ts";
import { PANEL_MSG } from "../shared/messages.ts";
import { authRoutes } from "./http/auth.ts";
import { userRoutes } from "./http/users.ts";
import { staticHandler } from "./http/static.ts";
import type { Area } from "./http/areas.ts";
import { areasModule, gameRoutesModule } from "./modules.ts";

// Each response header costs about 2 µs of the server's time (measured: six headers instead of one halved
// the requests per second of a fixed answer), so an answer carries the ones that act on it. Referrer-Policy
// and X-Frame-Options act on documents only; an API answer is never one. X-Factorio-Panel tells the PWA an
// error is the panel's own, not a reverse proxy's 502 while the panel is down, so errors carry it.
const DOCUMENT_HEADERS = { "X-Factorio-Panel": "1", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY" };
const API_ERROR_HEADERS = { ...API_HEADERS, "X-Factorio-Panel": "1" };
const API_OWN_CACHE_HEADERS = { "X-Content-Type-Options": "nosniff", "X-Factorio-Panel": "1" };

function headersFor(api: boolean, res: Response): Record<string, string> {
  if (!api) return DOCUMENT_HEADERS;
  if (res.headers.has("Cache-Control")) return API_OWN_CACHE_HEADERS;
  return res.status >= 400 ? API_ERROR_HEADERS : API_HEADERS;
}

/**
 * `res` with the headers every answer of its kind carries, set in place: Hono's c.header() after the
 * handler copied the whole Response once per call (four copies per request were a fifth of a small
 * request's CPU). A copy only for a response whose headers cannot change (none of ours). An answer made
 * by jsonText() has its headers already.
 */
function withHeaders(api: boolean, res: Response): Response {
  if (hasFinalHeaders(res)) return res;
  const headers = headersFor(api, res);
  try {
    const target = res.headers;
    for (const k in headers) target.set(k, headers[k]);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    for (const k in headers) copy.headers.set(k, headers[k]);
    return copy;
  }
}

/**
 * The areas of the first answers that need nothing of the live side (session check, sign-in and its
 * second step, users). Their reads are answered as soon as the panel listens; the rest of them and the
 * game's own routes (http/server.ts) once the live side is built (run.ts asks for it after the first
 * answer). The other areas are in http/areas.ts, loaded at the first request for one of them.
 */
const FIRST_AREAS: Area[] = [authRoutes, userRoutes, activityRoutes, secondFactorRoutes];

export interface PanelApp {
  /**
   * Answers requests: with the app of the eager areas until the others are loaded, then with one app of
   * every area, so a loaded area's requests pass through one router and one guard like any other.
   */
  app: { fetch(req: Request, info?: unknown): Response | Promise<Response> };
  /** Every API route, the lazily loaded areas' too (this loads them): the table the tests walk. */
  allRoutes(): Promise<Route[]>;
}

export function createApp(ctx: AppContext): PanelApp {
  const onError = (err: Error, c: Ctx) => {
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
  };

  const hostRefused = hostRefusal(ctx.config);
  const setClient = setClientInfo(ctx.config);
  const loadSessionOf = sessionOrRefusal(ctx.access);
  const serveStatic = staticHandler(ctx.config.staticDir);

  /** The front guard: the host check, the client's address, and for API paths the session. */
  const admit = (c: Ctx, api: boolean): Response | null => {
    const refused = hostRefused(c);
    if (refused) return refused;
    setClient(c);
    return api ? loadSessionOf(c) : null;
  };

  /**
   * `inner` behind the front guard, with the headers of its kind added to the answer (headersFor).
   * One handler per route rather than a middleware in front of all: Hono calls a path's only handler
   * directly, without its chain of async steps, and a synchronous answer (the game status, a kept list)
   * stays synchronous. Errors become answers here, so they get the same headers.
   */
  const fronted = (api: boolean, inner: (c: Ctx) => Response | Promise<Response>) => (c: Ctx): Response | Promise<Response> => {
    const refused = admit(c, api);
    if (refused) return withHeaders(api, refused);
    let res: Response | Promise<Response>;
    try {
      res = inner(c);
    } catch (err) {
      return withHeaders(api, onError(err as Error, c));
    }
    if (res instanceof Promise) return res.then((r) => withHeaders(api, r), (err) => withHeaders(api, onError(err, c)));
    return withHeaders(api, res);
  };

  const mount = (target: Hono<Env>, route: Route) => {
    const guarded = (c: Ctx): Response | Promise<Response> => {
      const session = c.get("session");
      // A bearer token is never sent by a browser on its own (no cookie comes with it, the loader refuses
      // both at once), so the cross-site rule is for cookie sessions only.
      if (changesState(route) && session?.via !== "token" && !fromOwnSite(c, ctx.config)) {
        ctx.log.warn("Refused a cross-site request", { method: route.method, path: c.req.path });
        return c.json(PANEL_MSG.crossSiteRefused, 403);
      }
      if (!route.public && !session) return c.json(PANEL_MSG.notSignedIn, 401);
      const refusal = session && !route.public ? authorize(route, session) : null;
      if (refusal) return c.json(refusal, 403);
      const label = route.requiresStopped;
      if (label) return ctx.game.whileStopped(label, async () => await route.handler(c));
      return route.handler(c);
    };
    // Reads are not recorded: no recorder in their way.
    if (!changesState(route)) {
      target.on(route.method, route.path, fronted(true, guarded));
      return;
    }
    const record = recordActivity(ctx.activity, route);
    target.on(
      route.method,
      route.path,
      fronted(true, async (c) => {
        // The recorder sees the answer the user gets, an error's too.
        await record(c, async () => {
          try {
            c.res = await guarded(c);
          } catch (err) {
            c.res = onError(err as Error, c);
          }
        });
        return c.res;
      }),
    );
  };

  // Unknown API paths: the same 401 as everything else without a session, a JSON 404 with one.
  const unknownApiPath = (c: Ctx) => {
    if (!c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
    return c.json(`No such API route: ${c.req.method} ${c.req.path}`, 404);
  };
  /** Any other path: the PWA's files. */
  const otherPath = (c: Ctx) => c.req.method === "GET" || c.req.method === "HEAD" ? serveStatic(c) : c.text("404 Not Found", 404);

  /** An app of `routes`; API paths none of them has go to `otherApi`. */
  const build = (routes: Route[], otherApi: (c: Ctx) => Response | Promise<Response>): Hono<Env> => {
    const app = new Hono<Env>({ router: new KeptPathRouter() });
    app.onError(onError);
    for (const route of routes) mount(app, route);
    // What no route has: other API paths and the PWA's files. Not as catch-all routes: a path that two
    // handlers match goes through Hono's chain instead of the direct call (see `fronted`).
    const apiFallback = fronted(true, otherApi);
    const pageFallback = fronted(false, otherPath);
    app.notFound((c) => c.req.path.startsWith("/api/") ? apiFallback(c) : pageFallback(c));
    app.get(
      "/ws",
      async (c, next) => {
        const refused = admit(c, false);
        if (refused) return withHeaders(false, refused);
        await next();
        // In place when it can be: the upgrade's own answer must stay the object it is.
        const res = withHeaders(false, c.res);
        if (res !== c.res) c.res = res;
        return undefined;
      },
      loadSession(ctx.access),
      async (c, next) => {
        if (c.get("session")?.via !== "token" && !fromOwnSite(c, ctx.config)) {
          return c.json(PANEL_MSG.crossSiteRefused, 403);
        }
        if (!c.get("session")) return c.json(PANEL_MSG.notSignedIn, 401);
        if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return c.json("Expected a WebSocket upgrade", 426);
        // The gate limits frame sizes only on connections that opened with the upgrade (browsers always do).
        if ((c.env as { webSocketGuarded?: boolean } | undefined)?.webSocketGuarded === false) {
          return c.json("Open the WebSocket on a new connection", 400);
        }
        // The hub is part of the live side: a socket opened while the panel starts waits for it.
        await ctx.loadLive();
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
    return app;
  };

  const first = FIRST_AREAS.flatMap((area) => area(ctx));
  // Answered first, before the live side is needed: the reads among them (no state change, so no event
  // that the live side's alerts would miss). Any other API request builds the live side if it is not yet
  // and goes to the app of every eager area (the game's own routes with them), which answers from then
  // on; its other API paths load the remaining areas and build the whole app. A sub-app for the lazy
  // areas behind the eager one cost every list request a second router, guard copy and promise chain:
  // 20-40 µs (bench/lists.mjs).
  const early = first.filter((route) => !changesState(route) && !route.requiresStopped);
  let eager: Promise<{ app: Hono<Env>; routes: Route[] }> | null = null;
  let whole: Promise<{ app: Hono<Env>; routes: Route[] }> | null = null;
  const loadEager = () =>
    eager ??= Promise.all([gameRoutesModule(), ctx.loadLive()]).then(([server]) => {
      const routes = [...first, ...server.serverRoutes(ctx)];
      const app = build(routes, async (c) => (await loadWhole()).app.fetch(c.req.raw, c.env));
      // Before the whole app can replace it: that one is built only once this promise has settled.
      current = app;
      return { app, routes };
    }, (e) => {
      eager = null;
      throw e;
    });
  const loadWhole = () =>
    // The services those areas use (services.ts) load with them, if the timer has not loaded them yet.
    whole ??= Promise.all([loadEager(), areasModule(), ctx.loadServices()]).then(([{ routes: eagerRoutes }, { LAZY_AREAS }]) => {
      const routes = [...eagerRoutes, ...LAZY_AREAS.flatMap((area) => area(ctx))];
      const app = build(routes, unknownApiPath);
      current = app;
      return { app, routes };
    }, (e) => {
      whole = null;
      throw e;
    });
  let current = build(early, async (c) => (await loadEager()).app.fetch(c.req.raw, c.env));

  return {
    app: { fetch: (req, info) => current.fetch(req, info) },
    allRoutes: async () => (await loadWhole()).routes,
  };
}
