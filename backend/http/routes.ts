// The route table. Every API route is declared as data, so the rules that must hold for all of them
// (session required, cross-site refusal for state changes, 423 while the game runs) are applied in one
// place (app.ts) and enumerated by the tests. A route cannot forget its guard.

import type { Context } from "hono";
import type { SessionInfo } from "../auth/accounts.ts";
import type { Role } from "../../shared/api.ts";
import type { ActivityNote } from "../activity/log.ts";
import type { Server } from "../servers/build.ts";
import type { z } from "zod";
import { type Contract, contract, type RouteKey } from "../../shared/contract/index.ts";
import type { Method, RouteDef } from "../../shared/contract/route.ts";

export interface Env {
  Variables: {
    session: SessionInfo | null;
    clientAddress: string;
    secure: boolean;
    /** What the handler adds to the activity record of this request (who tried to sign in, which target). */
    activity: ActivityNote | undefined;
    /** The server a per-server route acts on (/api/R: server 1; /api/servers/{id}/R: server id). */
    server: Server | undefined;
  };
}

export type Ctx = Context<Env>;

/** A 200 answer of JSON text the caller keeps (the status, the save, mod and backup lists). */
export function jsonText<T>(text: string): Reply<T> {
  return new Response(text, { headers: { "Content-Type": "application/json" } }) as Reply<T>;
}

/** What a route's handler gets besides the context: its body and query, parsed at the edge (app.ts). */
export interface Input<K extends RouteKey> {
  body: Contract[K] extends { body: infer B extends z.ZodType } ? z.output<B> : undefined;
  query: Contract[K] extends { query: infer Q extends z.ZodType } ? z.output<Q> : undefined;
}

declare const answerOf: unique symbol;
/**
 * A Response that carries an answer of type T: JSON text kept in a cache, or an answer with a status of
 * its own. Only `reply` and `jsonText` make one, so a handler cannot answer a shape its route does not have.
 */
export type Reply<T> = Response & { readonly [answerOf]: T };

/** The answer of route K as its handler gives it: the value (sent as JSON) or a Reply; a file's route: a Response. */
export type Answer<K extends RouteKey> = Contract[K]["answer"] extends z.ZodType
  ? z.input<Contract[K]["answer"]> | Reply<z.input<Contract[K]["answer"]>>
  : Response;

export type Handler<K extends RouteKey, I = Input<K>> = (c: Ctx, input: I) => Answer<K> | Promise<Answer<K>>;

/** An answer of the route's `errors` (424: the mods a save needs that could not be installed). */
export function failed(c: Ctx, value: unknown, status: 424): Reply<never> {
  return c.json(value as never, status) as unknown as Reply<never>;
}

/** The same data in another form than JSON (the activity log as CSV, asked with ?format=csv). */
export function otherForm(res: Response): Reply<never> {
  return res as Reply<never>;
}

/** `value` as JSON with the status the game's operation gave (202 under way), or 201 created. */
export function reply<T>(c: Ctx, value: T, status: 200 | 201 | 202): Reply<T> {
  return c.json(value as never, status) as unknown as Reply<T>;
}

/**
 * A route of the table: its contract entry (shared/contract/) with the handler. Method, path, role and
 * the other rules come from the contract, so there is one list of routes.
 */
export interface Route {
  key: RouteKey;
  method: Method;
  path: string;
  def: RouteDef;
  // deno-lint-ignore no-explicit-any
  handler: (c: Ctx, input: Input<any>) => unknown;
  /** Answer without a session: only the sign-in steps (password, second factor, passkey). */
  public?: boolean;
  /**
   * A GET that changes state (the old API has some: stop, kill, saves rm/create, logout, portal logout).
   * Every non-GET route counts as state-changing anyway.
   */
  changesState?: boolean;
  /**
   * The route changes the game directory and needs the game stopped: what it does, in words ("a mod
   * upload"). The whole handler holds the directory (game.whileStopped): 423 unless the game is stopped,
   * and the game does not start until the handler is done (409 naming this).
   */
  requiresStopped?: string;
  /** The weakest role that may call the route (403 below it); unset on the public routes. */
  role?: Role;
  /**
   * Only for a signed-in browser session, not an API token: managing tokens, sessions, passwords and
   * second factors must need the person, not a script's credential.
   */
  interactive?: boolean;
  /** The body goes to the handler as sent (see `routeCheckedByDomain`); the edge checks only the query. */
  domainChecked?: boolean;
  /**
   * Open to an admin who must still set up a second factor (--require-2fa-admins): the account's own
   * pages, sign-out and the session check. Everything else answers 403 until they have.
   */
  beforeEnrolment?: boolean;
}

/**
 * A route whose body a domain validator checks whole, naming each problem where it is ("Task 1: the type
 * must be one of ...", "Retention: keep days must be ..."): the edge passes the JSON body as sent (no body:
 * undefined), and the contract's schema only describes it.
 */
export function routeCheckedByDomain<K extends RouteKey>(
  key: K,
  handler: Handler<K, { body: unknown; query: Input<K>["query"] }>,
): Route {
  return { ...route(key, handler as Handler<K>), domainChecked: true };
}

/** The route `key` of the contract served by `handler`. */
export function route<K extends RouteKey>(
  key: K,
  handler: Handler<K>,
  opts: { beforeEnrolment?: true } = {},
): Route {
  const def: RouteDef = contract[key];
  const space = key.indexOf(" ");
  return {
    key,
    method: key.slice(0, space) as Method,
    path: key.slice(space + 1),
    def,
    handler,
    public: def.public,
    changesState: def.changesState,
    requiresStopped: def.requiresStopped,
    role: def.role,
    interactive: def.interactive,
    beforeEnrolment: opts.beforeEnrolment,
  };
}

/** The role a route needs: declared, or viewer for reads and operator for anything that changes state. */
export function requiredRole(r: Route): Role {
  return r.role ?? (changesState(r) ? "operator" : "viewer");
}

export function changesState(r: Route): boolean {
  return r.method !== "GET" || r.changesState === true;
}

/** The signed-in session; routes behind the session guard can rely on it. */
export function sessionOf(c: Ctx): SessionInfo {
  const s = c.get("session");
  if (!s) throw new Error("route reached without a session: the guard in app.ts is missing");
  return s;
}
