// The route table. Every API route is declared as data, so the rules that must hold for all of them
// (session required, cross-site refusal for state changes, 423 while the game runs) are applied in one
// place (app.ts) and enumerated by the tests. A route cannot forget its guard.

import type { Context } from "hono";
import type { SessionInfo } from "../auth/accounts.ts";

export interface Env {
  Variables: {
    session: SessionInfo | null;
    clientAddress: string;
    secure: boolean;
  };
}

export type Ctx = Context<Env>;

export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  handler: (c: Ctx) => Response | Promise<Response>;
  /** Answer without a session. Only POST /api/login. */
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
