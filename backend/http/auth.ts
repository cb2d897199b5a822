// Sign-in, sign-out and the session user.

import { deleteCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Ctx, Route } from "./routes.ts";
import { sessionOf } from "./routes.ts";
import { SESSION_COOKIE } from "./guards.ts";

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

export function authRoutes(ctx: AppContext): Route[] {
  const { accounts } = ctx;
  return [
    {
      method: "POST",
      path: "/api/login",
      public: true,
      handler: async (c) => {
        const body = await readObject(c);
        const { token, user } = await accounts.login(body, clientOf(c));
        // A sign-in replaces whatever session this browser had.
        const previous = c.get("session");
        if (previous) accounts.logout(previous.id);
        setSessionCookie(c, token, accounts.sessionSeconds);
        return c.json(user);
      },
    },
    {
      method: "GET",
      path: "/api/logout",
      changesState: true,
      handler: (c) => {
        accounts.logout(sessionOf(c).id);
        clearSessionCookie(c);
        return c.json("User logged out successfully.");
      },
    },
    {
      method: "GET",
      path: "/api/user/status",
      handler: (c) => c.json(accounts.sessionUser(sessionOf(c).user)),
    },
  ];
}
