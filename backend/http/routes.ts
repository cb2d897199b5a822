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

/** Headers every successful API answer carries; app.ts adds them to answers built without them. */
export const API_HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };
const JSON_TEXT_HEADERS = { "Content-Type": "application/json", ...API_HEADERS };
/**
 * An answer whose headers are final (made by jsonText). A class of its own, told by `instanceof`: a
 * WeakSet of them cost as much again as making the Response (0.12 µs in a loop), on every status request.
 */
class FinalResponse extends Response {}

const CONTENT_TYPE_ONLY = { "Content-Type": "application/json" };
/**
 * Up to this many characters, a kept answer gets its other headers after it is made (below); above
 * it, with them. Measured with wrk against a bare Deno.serve answering a fixed body each way,
 * alternated (2026-11-28): 300 bytes 51.7k against 47.0k req/s, 3 KB 35.9k against 33.3k, 12 KB
 * 31.4k against 30.6k, 300 KB the same within the noise.
 */
export const SMALL_ANSWER = 16 * 1024;

/**
 * A 200 answer of JSON text kept by the caller (status, lists), with all its headers; app.ts leaves
 * such an answer as it is. Deno builds a native response at once for a Response made with headers
 * other than Content-Type (copying the body, and registering it for finalisation): 4.5 µs for a
 * 300-byte status in a loop, where one made with Content-Type alone and given the other two through
 * its Headers afterwards costs 0.9 µs, and is sent by Deno's ordinary path. For a large answer
 * (a list of 300 KiB) that ordinary path copied the body once more, 20 µs a request (bench/lists.mjs),
 * so those are made with their headers.
 */
export function jsonText(text: string): Response {
  let res: Response;
  if (text.length <= SMALL_ANSWER) {
    res = new FinalResponse(text, { status: 200, headers: CONTENT_TYPE_ONLY });
    const headers = res.headers;
    for (const k in API_HEADERS) headers.set(k, API_HEADERS[k as keyof typeof API_HEADERS]);
  } else {
    res = new FinalResponse(text, { status: 200, headers: JSON_TEXT_HEADERS });
  }
  return res;
}

/** jsonText() of text that may still be coming: a kept list answers without a promise when it is current. */
export function jsonTextOf(text: string | Promise<string>): Response | Promise<Response> {
  return typeof text === "string" ? jsonText(text) : text.then(jsonText);
}

/** True for an answer made by jsonText(): its headers are final. */
export function hasFinalHeaders(res: Response): boolean {
  return res instanceof FinalResponse;
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  /**
   * A handler declared without a parameter reads nothing of the request (the status, the kept lists):
   * for a GET of a fixed path app.ts then answers it without making Hono's context.
   */
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
