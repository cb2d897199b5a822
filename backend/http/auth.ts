// Sign-in, sign-out and the session user.

import { deleteCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../boot/context.ts";
import { SESSION_COOKIE } from "./guards.ts";
import type { User } from "../../shared/api.ts";
import { secondStepAnswer } from "./secondfactor.ts";
import { Invalid } from "../lib/errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { type Ctx, type Route, route, sessionOf } from "./routes.ts";

export function setSessionCookie(c: Ctx, token: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Strict",
    secure: c.get("secure"),
    maxAge: Math.floor(maxAgeSeconds),
  });
}

export function clearSessionCookie(c: Ctx): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: c.get("secure"), httpOnly: true, sameSite: "Strict" });
}

export function clientOf(c: Ctx): { address: string; userAgent: string } {
  return { address: c.get("clientAddress"), userAgent: c.req.header("user-agent") ?? "" };
}

/** Sets the new session's cookie; a sign-in replaces whatever session this browser had. */
export function finishSignIn(c: Ctx, ctx: AppContext, token: string, user: User): User {
  const previous = c.get("session");
  if (previous?.via === "session") ctx.accounts.logout(previous.id);
  setSessionCookie(c, token, ctx.accounts.sessionSeconds);
  const row = ctx.accounts.users.byName(user.username);
  return row && ctx.accounts.mustEnrol(row) ? { ...user, must_enrol: true } : user;
}

export function authRoutes(ctx: AppContext): Route[] {
  const { accounts } = ctx;
  return [
    route("POST /api/login", async (c, { body }) => {
      c.set("activity", { user: body.username.trim().slice(0, 100) });
      const result = await accounts.login(body, clientOf(c));
      if (result.kind === "secondFactor") return secondStepAnswer(c, result.pending, result.methods);
      const user = finishSignIn(c, ctx, result.token, result.user);
      // Controls, where signing in lands, needs the game's status: it comes along, which saves the app a
      // round trip on a slow network (bench/login.mjs). Not before enrolment: that session reads nothing else.
      return user.must_enrol ? user : { ...user, server_status: ctx.game.status() };
    }),
    route("GET /api/logout", (c) => {
      // A token is not a sign-in: ending it here would break a script that calls logout out of habit
      // from the old API, and answering success would leave its owner believing it ended. Say so.
      if (sessionOf(c).via === "token") throw new Invalid(ACCESS_MSG.tokenNotSignedOut);
      accounts.logout(sessionOf(c).id);
      clearSessionCookie(c);
      return "User logged out successfully.";
    }, { beforeEnrolment: true }),
    route("GET /api/user/status", (c) => {
      const s = sessionOf(c);
      return { ...accounts.sessionUser(s.user), ...(s.mustEnrol ? { must_enrol: true } : {}) };
    }, { beforeEnrolment: true }),
  ];
}
