// The second sign-in step and the caller's own second factors (TOTP and recovery codes). The password
// step (http/auth.ts) hands over through a short-lived cookie scoped to /api/login, so the second step
// needs no secret in the page's script.

import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import { type Ctx, type Route, sessionOf } from "./routes.ts";
import { clientOf, finishSignIn } from "./auth.ts";
import { publicUser } from "../store/users.ts";
import { ACCESS_MSG, type SecondFactorRequired } from "../../shared/access.ts";
import { PENDING_MS } from "../auth/secondfactor.ts";

export const PENDING_COOKIE = "authentication-2fa";
const PENDING_PATH = "/api/login";

/** What POST /api/login answers when the password was right and a second step is due. */
export function secondStepAnswer(c: Ctx, pending: string, methods: SecondFactorRequired["methods"]): SecondFactorRequired {
  setCookie(c, PENDING_COOKIE, pending, {
    path: PENDING_PATH,
    httpOnly: true,
    sameSite: "Strict",
    secure: c.get("secure"),
    maxAge: PENDING_MS / 1000,
  });
  return { second_factor: true, methods };
}

export function pendingOf(c: Ctx): string | undefined {
  return getCookie(c, PENDING_COOKIE);
}

export function clearPending(c: Ctx): void {
  deleteCookie(c, PENDING_COOKIE, { path: PENDING_PATH, secure: c.get("secure"), httpOnly: true, sameSite: "Strict" });
}

export function secondFactorRoutes(ctx: AppContext): Route[] {
  const { secondFactor, accounts } = ctx;
  const own = { role: "viewer", interactive: true, beforeEnrolment: true } as const;
  return [
    {
      method: "POST",
      path: "/api/login/second-factor",
      public: true,
      handler: async (c) => {
        const pending = pendingOf(c);
        const who = secondFactor.pendingUser(pending);
        if (who) c.set("activity", { user: who.username, detail: "second factor" });
        const body = await readObject(c);
        const user = await secondFactor.verify(pending, body, clientOf(c).address);
        clearPending(c);
        const token = accounts.openSession(user.id, clientOf(c));
        ctx.log.info("Signed in", { username: user.username, address: clientOf(c).address, second: true });
        return c.json(finishSignIn(c, ctx, token, publicUser(user)));
      },
    },
    {
      method: "GET",
      path: "/api/user/2fa",
      ...own,
      handler: (c) => {
        const id = sessionOf(c).user.id;
        return c.json(secondFactor.status(id, ctx.passkeys.count(id)));
      },
    },
    {
      method: "POST",
      path: "/api/user/2fa/totp/setup",
      ...own,
      handler: async (c) => c.json(await secondFactor.startTotp(sessionOf(c).user)),
    },
    {
      method: "POST",
      path: "/api/user/2fa/totp/confirm",
      ...own,
      handler: async (c) => {
        const body = await readObject(c);
        return c.json({ recovery_codes: await secondFactor.confirmTotp(sessionOf(c).user, body) });
      },
    },
    {
      method: "POST",
      path: "/api/user/2fa/totp/disable",
      ...own,
      handler: async (c) => {
        await secondFactor.disableTotp(sessionOf(c).user, await readObject(c));
        return c.json(ACCESS_MSG.totpDisabled);
      },
    },
    {
      method: "POST",
      path: "/api/user/2fa/recovery",
      ...own,
      handler: async (c) =>
        c.json({ recovery_codes: await secondFactor.regenerateRecoveryCodes(sessionOf(c).user, await readObject(c)) }),
    },
  ];
}
