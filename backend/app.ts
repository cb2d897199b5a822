// The HTTP application: the guards every route gets from the route table, the route modules of each area,
// /ws, the built PWA, and the one error handler that turns typed errors into JSON string answers.

// Hono's base class with the panel's router: `hono` itself also loads the RegExpRouter and SmartRouter
// of its default, which the panel never uses (~1 ms of each start).
import { HonoBase as Hono } from "hono/hono-base";
import { isFixedPath, KeptPathRouter } from "./http/router.ts";
import { upgradeWebSocket } from "./http/denows.ts";
import type { AppContext } from "./context.ts";
import { API_HEADERS, changesState, type Ctx, type Env, hasFinalHeaders, type Route } from "./http/routes.ts";
import { authorize, type Client, clientOf, fromOwnSite, hostRefusal, jsonMessage, requestSession } from "./http/guards.ts";
import type { SessionInfo } from "./auth/accounts.ts";
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

/** Answers a request (`info`: what the server gave the handler). */
interface Served {
  fetch(req: Request, info?: unknown): Response | Promise<Response>;
}

/**
 * The path of a request URL for plainAnswer(), without its query; "" when it has a percent sign (Hono
 * decodes those, and such a path goes to Hono).
 */
function plainPath(url: string): string {
  const start = url.indexOf("/", url.indexOf(":") + 3);
  const query = url.indexOf("?", start);
  const path = query === -1 ? url.slice(start) : url.slice(start, query);
  return path.includes("%") ? "" : path;
}

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
  /** The answer to a handler's error on `method` `path`. */
  const errorAnswer = (err: Error, method: string, path: string): Response => {
    if (err instanceof HttpError) {
      const res = jsonMessage(err.message, err.status);
      for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
      return res;
    }
    if (isNoSpace(err)) {
      // 507: the disk is full; the message says where, so the admin knows what to free.
      ctx.log.error("No space left on the device", { method, path, error: String(err) });
      return jsonMessage(PANEL_MSG.noSpace(areaOfPath(path)), 507);
    }
    ctx.log.error("Unhandled error", { method, path, error: String(err?.stack ?? err) });
    return jsonMessage(PANEL_MSG.internalError, 500);
  };
  const onError = (err: Error, c: Ctx) => errorAnswer(err, c.req.method, c.req.path);

  const hostRefused = hostRefusal(ctx.config);
  const clientOfRequest = clientOf(ctx.config);
  const sessionOfRequest = requestSession(ctx.access);
  const serveStatic = staticHandler(ctx.config.staticDir);

  /**
   * The front guard, on the request as it came (`info`: what the server gave the handler): the host
   * check, the client, and for API paths the session. Its refusal, or who is asking.
   */
  const admitRequest = (req: Request, info: unknown, api: boolean): Response | { client: Client; session: SessionInfo | null } => {
    const refused = hostRefused(req);
    if (refused) return refused;
    const client = clientOfRequest(req, info);
    if (!api) return { client, session: null };
    const resolved = sessionOfRequest(req, client.address);
    if ("refuse" in resolved) return jsonMessage(resolved.refuse.message, resolved.refuse.status);
    return { client, session: resolved.session };
  };

  /** admitRequest() for a request Hono has a context of: what it learnt is set on the context. */
  const admit = (c: Ctx, api: boolean): Response | null => {
    const admitted = admitRequest(c.req.raw, c.env, api);
    if (admitted instanceof Response) return admitted;
    c.set("clientAddress", admitted.client.address);
    c.set("secure", admitted.client.secure);
    if (api) c.set("session", admitted.session);
    return null;
  };

  /** Why `session` may not use `route` (past the cross-site check): the answer that says so, or null. */
  const accessRefusal = (route: Route, session: SessionInfo | null | undefined): Response | null => {
    if (route.public) return null;
    if (!session) return jsonMessage(PANEL_MSG.notSignedIn, 401);
    const refusal = authorize(route, session);
    return refusal ? jsonMessage(refusal, 403) : null;
  };

  /**
   * What `run(arg)` answers, or the answer to its error (`failed`), with the headers of its kind added
   * (headersFor); a synchronous answer stays synchronous.
   */
  const settle = <T>(api: boolean, run: (arg: T) => Response | Promise<Response>, arg: T, failed: (err: Error) => Response) => {
    let res: Response | Promise<Response>;
    try {
      res = run(arg);
    } catch (err) {
      return withHeaders(api, failed(err as Error));
    }
    if (res instanceof Promise) return res.then((r) => withHeaders(api, r), (err) => withHeaders(api, failed(err)));
    return withHeaders(api, res);
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
    return settle(api, inner, c, (err) => onError(err, c));
  };

  /**
   * The routes answered without Hono: GETs of a fixed path whose handler takes no argument (it reads
   * nothing of the request: the game status, the kept lists). Hono makes a context for every request,
   * with a dozen functions of its own, and the status is asked most often of all: going around Hono
   * answered it 4% faster (88-89k against 92-93k req/s, wrk, runs alternated, 2026-11-29). The same
   * guards, in the same order, as a route behind Hono (mount); app_test.ts compares the two answers.
   */
  const plainAnswer = (route: Route) => {
    const run = route.handler as () => Response | Promise<Response>;
    const failed = (err: Error) => errorAnswer(err, route.method, route.path);
    return (req: Request, info: unknown): Response | Promise<Response> => {
      const admitted = admitRequest(req, info, true);
      if (admitted instanceof Response) return withHeaders(true, admitted);
      const refused = accessRefusal(route, admitted.session);
      if (refused) return withHeaders(true, refused);
      return settle(true, run, undefined, failed);
    };
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
      const refused = accessRefusal(route, session);
      if (refused) return refused;
      const label = route.requiresStopped;
      if (label) return ctx.game.whileStopped(label, async () => await route.handler(c));
      return route.handler(c);
    };
    // Reads are not recorded: no recorder in their way.
    if (!changesState(route)) {
      target.on(route.method, route.path, fronted(true, guarded));
      return;
    }
    const record = recordActivity(ctx.activity, route, ctx.log.warn);
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
  const build = (routes: Route[], otherApi: (c: Ctx) => Response | Promise<Response>): Served => {
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
        // The session too (admit's API form): the socket is only for a signed-in caller.
        const refused = admit(c, true);
        if (refused) return withHeaders(false, refused);
        await next();
        // In place when it can be: the upgrade's own answer must stay the object it is.
        const res = withHeaders(false, c.res);
        if (res !== c.res) c.res = res;
        return undefined;
      },
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
    // The routes of plainAnswer(): only where Hono would call that route and no other for the path.
    const plain = new Map<string, (req: Request, info: unknown) => Response | Promise<Response>>();
    for (const route of routes) {
      if (route.method !== "GET" || route.handler.length !== 0 || !isFixedPath(route.path)) continue;
      if (changesState(route) || route.public || route.requiresStopped) continue;
      if (app.router.match("GET", route.path)[0].length !== 1) continue;
      plain.set(route.path, plainAnswer(route));
    }
    return {
      fetch: (req, info) => {
        const answer = plain.size === 0 ? undefined : plain.get(plainPath(req.url));
        return answer && req.method === "GET" ? answer(req, info) : app.fetch(req, info);
      },
    };
  };

  const first = FIRST_AREAS.flatMap((area) => area(ctx));
  // Answered first, before the live side is needed: the reads among them (no state change, so no event
  // that the live side's alerts would miss). Any other API request builds the live side if it is not yet
  // and goes to the app of every eager area (the game's own routes with them), which answers from then
  // on; its other API paths load the remaining areas and build the whole app. A sub-app for the lazy
  // areas behind the eager one cost every list request a second router, guard copy and promise chain:
  // 20-40 µs (bench/lists.mjs).
  const early = first.filter((route) => !changesState(route) && !route.requiresStopped);
  let eager: Promise<{ app: Served; routes: Route[] }> | null = null;
  let whole: Promise<{ app: Served; routes: Route[] }> | null = null;
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
