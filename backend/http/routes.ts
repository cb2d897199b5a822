// The route table. Every API route is declared as data, so the rules that must hold for all of them
// (session required, cross-site refusal for state changes, 423 while the game runs) are applied in one
// place (app.ts) and enumerated by the tests. A route cannot forget its guard.

import type { Context } from "hono";
import type { SessionInfo } from "../auth/accounts.ts";
import type { Role } from "../../shared/api.ts";
import type { ActivityNote } from "../activity/log.ts";

export interface Env {
  Variables: {
    session: SessionInfo | null;
    clientAddress: string;
    secure: boolean;
    /** What the handler adds to the activity record of this request (who tried to sign in, which target). */
    activity: ActivityNote | undefined;
  };
}

export type Ctx = Context<Env>;

/** A 200 answer of JSON text the caller keeps (the status, the save, mod and backup lists). */
export function jsonText(text: string): Response {
  return new Response(text, { headers: { "Content-Type": "application/json" } });
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  handler: (c: Ctx) => Response | Promise<Response>;
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
  /**
   * The weakest role that may call the route (403 below it). Unset means the safe default of
   * `requiredRole`: viewers read, operators change. Routes about panel users and secrets say "admin";
   * routes that act only on the caller's own account say "viewer".
   */
  role?: Role;
  /**
   * Only for a signed-in browser session, not an API token: managing tokens, sessions, passwords and
   * second factors must need the person, not a script's credential.
   */
  interactive?: boolean;
  /**
   * Open to an admin who must still set up a second factor (--require-2fa-admins): the account's own
   * pages, sign-out and the session check. Everything else answers 403 until they have.
   */
  beforeEnrolment?: boolean;
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
