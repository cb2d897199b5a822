// Passkeys over HTTP: the caller's own list (register, rename, remove) and the sign-in ceremony, which
// is the second step after a password (the pending cookie says whose) or, without one, passwordless.

import type { AppContext } from "../boot/context.ts";
import type { AnswerOf } from "../../shared/contract/index.ts";
import { ownOrigin } from "./guards.ts";
import { clientOf, finishSignIn } from "./auth.ts";
import { clearPending, pendingOf } from "./secondfactor.ts";
import { publicUser } from "../store/users.ts";
import type { RelyingParty } from "../auth/passkeys.ts";
import { Invalid, Unauthorized } from "../lib/errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { type Ctx, type Route, route, sessionOf } from "./routes.ts";

/** The relying party is the host the browser sees (behind a trusted proxy too), so no setting is needed. */
function relyingParty(c: Ctx, ctx: AppContext): RelyingParty {
  const origin = ownOrigin(c, ctx.config);
  if (!origin) throw new Invalid("The request names no host");
  return { id: new URL(origin).hostname, origins: [origin, ...ctx.config.allowedOrigins] };
}

export function passkeyRoutes(ctx: AppContext): Route[] {
  const { passkeys, secondFactor, accounts } = ctx;
  return [
    route("GET /api/user/passkeys", (c) => passkeys.list(sessionOf(c).user.id), { beforeEnrolment: true }),
    route("POST /api/user/passkeys/options", async (c) =>
      // The library's option types are interfaces (no index signature); the contract describes them loosely.
      (await passkeys.registrationOptions(sessionOf(c).user, relyingParty(c, ctx))) as AnswerOf<
        "POST /api/user/passkeys/options"
      >, { beforeEnrolment: true }),
    route("POST /api/user/passkeys", async (c, { body }) => {
      const added = await passkeys.register(sessionOf(c).user, body, relyingParty(c, ctx));
      c.set("activity", { detail: added.name });
      return added;
    }, { beforeEnrolment: true }),
    route("POST /api/user/passkeys/:id", async (c, { body }) => {
      passkeys.rename(sessionOf(c).user.id, c.req.param("id") ?? "", body.name);
      return passkeys.list(sessionOf(c).user.id);
    }, { beforeEnrolment: true }),
    route("POST /api/user/passkeys/:id/remove", (c) => {
      passkeys.remove(sessionOf(c).user.id, c.req.param("id") ?? "");
      return passkeys.list(sessionOf(c).user.id);
    }, { beforeEnrolment: true }),
    route(
      "POST /api/login/passkey/options",
      async (c) => ({
        ...await passkeys.loginOptions(secondFactor.pendingUser(pendingOf(c)), relyingParty(c, ctx)),
      }),
    ),
    route("POST /api/login/passkey", async (c, { body }) => {
      const pending = pendingOf(c);
      const pendingUser = secondFactor.pendingUser(pending);
      const address = clientOf(c).address;
      if (pendingUser) {
        c.set("activity", { user: pendingUser.username, detail: "passkey" });
        secondFactor.guardRate(pendingUser, address);
      }
      let userId: number;
      try {
        userId = await passkeys.authenticate(pendingUser, body, relyingParty(c, ctx));
      } catch (e) {
        if (pendingUser) secondFactor.failed(pendingUser, address);
        throw e;
      }
      const user = accounts.users.byId(userId);
      if (!user) throw new Unauthorized(ACCESS_MSG.passkeyFailed);
      c.set("activity", { user: user.username, detail: pendingUser ? "passkey" : "passkey, passwordless" });
      if (pending && pendingUser) secondFactor.succeeded(pendingUser, pending);
      clearPending(c);
      const token = accounts.openSession(user.id, clientOf(c));
      ctx.log.info("Signed in", { username: user.username, address, passkey: true });
      return finishSignIn(c, ctx, token, publicUser(user));
    }),
  ];
}
