// The second sign-in step and the caller's own second factors (TOTP and recovery codes). The password
// step (http/auth.ts) hands over through a short-lived cookie scoped to /api/login, so the second step
// needs no secret in the page's script.

import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../boot/context.ts";
import { clientOf, finishSignIn } from "./auth.ts";
import { publicUser } from "../store/users.ts";
import { ACCESS_MSG, type SecondFactorRequired } from "../../shared/access.ts";
import { PENDING_MS } from "../auth/secondfactor.ts";
import { type Ctx, type Route, route, sessionOf } from "./routes.ts";

export const PENDING_COOKIE = "authentication-2fa";
const PENDING_PATH = "/api/login";

/** What POST /api/login answers when the password was right and a second step is due. */
export function secondStepAnswer(
  c: Ctx,
  pending: string,
  methods: SecondFactorRequired["methods"],
): SecondFactorRequired {
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
  deleteCookie(c, PENDING_COOKIE, {
    path: PENDING_PATH,
    secure: c.get("secure"),
    httpOnly: true,
    sameSite: "Strict",
  });
}

export function secondFactorRoutes(ctx: AppContext): Route[] {
  const { secondFactor, accounts } = ctx;
  return [
    route("POST /api/login/second-factor", async (c, { body }) => {
      const pending = pendingOf(c);
      const who = secondFactor.pendingUser(pending);
      if (who) c.set("activity", { user: who.username, detail: "second factor" });
      const user = await secondFactor.verify(pending, body, clientOf(c).address);
      clearPending(c);
      const token = accounts.openSession(user.id, clientOf(c));
      ctx.log.info("Signed in", { username: user.username, address: clientOf(c).address, second: true });
      return finishSignIn(c, ctx, token, publicUser(user));
    }),
    route("GET /api/user/2fa", (c) => {
      const id = sessionOf(c).user.id;
      return secondFactor.status(id, ctx.passkeys.count(id));
    }, { beforeEnrolment: true }),
    route("POST /api/user/2fa/totp/setup", async (c) => await secondFactor.startTotp(sessionOf(c).user), {
      beforeEnrolment: true,
    }),
    route("POST /api/user/2fa/totp/confirm", async (c, { body }) => {
      return { recovery_codes: await secondFactor.confirmTotp(sessionOf(c).user, body) };
    }, { beforeEnrolment: true }),
    route("POST /api/user/2fa/totp/disable", async (c, { body }) => {
      await secondFactor.disableTotp(sessionOf(c).user, body);
      return ACCESS_MSG.totpDisabled;
    }, { beforeEnrolment: true }),
    route("POST /api/user/2fa/recovery", async (c, { body }) => ({
      recovery_codes: await secondFactor.regenerateRecoveryCodes(sessionOf(c).user, body),
    }), { beforeEnrolment: true }),
  ];
}
