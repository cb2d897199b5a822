// Passkeys over HTTP: the caller's own list (register, rename, remove) and the sign-in ceremony, which
// is the second step after a password (the pending cookie says whose) or, without one, passwordless.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import { type Ctx, type Route, sessionOf } from "./routes.ts";
import { ownOrigin } from "./guards.ts";
import { clientOf, finishSignIn } from "./auth.ts";
import { clearPending, pendingOf } from "./secondfactor.ts";
import { publicUser } from "../store/users.ts";
import type { RelyingParty } from "../auth/passkeys.ts";
import { Invalid, Unauthorized } from "../errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";

/** The relying party is the host the browser sees (behind a trusted proxy too), so no setting is needed. */
function relyingParty(c: Ctx, ctx: AppContext): RelyingParty {
  const origin = ownOrigin(c, ctx.config);
  if (!origin) throw new Invalid("The request names no host");
  return { id: new URL(origin).hostname, origins: [origin, ...ctx.config.allowedOrigins] };
}

export function passkeyRoutes(ctx: AppContext): Route[] {
  const { passkeys, secondFactor, accounts } = ctx;
  const own = { role: "viewer", interactive: true, beforeEnrolment: true } as const;
  return [
    { method: "GET", path: "/api/user/passkeys", ...own, handler: (c) => c.json(passkeys.list(sessionOf(c).user.id)) },
    {
      method: "POST",
      path: "/api/user/passkeys/options",
      ...own,
      handler: async (c) => c.json(await passkeys.registrationOptions(sessionOf(c).user, relyingParty(c, ctx))),
    },
    {
      method: "POST",
      path: "/api/user/passkeys",
      ...own,
      handler: async (c) => {
        const added = await passkeys.register(sessionOf(c).user, await readObject(c), relyingParty(c, ctx));
        c.set("activity", { detail: added.name });
        return c.json(added);
      },
    },
    {
      method: "POST",
      path: "/api/user/passkeys/:id",
      ...own,
      handler: async (c) => {
        passkeys.rename(sessionOf(c).user.id, c.req.param("id") ?? "", (await readObject(c)).name);
        return c.json(passkeys.list(sessionOf(c).user.id));
      },
    },
    {
      method: "POST",
      path: "/api/user/passkeys/:id/remove",
      ...own,
      handler: (c) => {
        passkeys.remove(sessionOf(c).user.id, c.req.param("id") ?? "");
        return c.json(passkeys.list(sessionOf(c).user.id));
      },
    },
    {
      method: "POST",
      path: "/api/login/passkey/options",
      public: true,
      handler: async (c) => c.json(await passkeys.loginOptions(secondFactor.pendingUser(pendingOf(c)), relyingParty(c, ctx))),
    },
    {
      method: "POST",
      path: "/api/login/passkey",
      public: true,
      handler: async (c) => {
        const pending = pendingOf(c);
        const pendingUser = secondFactor.pendingUser(pending);
        const address = clientOf(c).address;
        if (pendingUser) {
          c.set("activity", { user: pendingUser.username, detail: "passkey" });
          secondFactor.guardRate(pendingUser, address);
        }
        let userId: number;
        try {
          userId = await passkeys.authenticate(pendingUser, await readObject(c), relyingParty(c, ctx));
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
        return c.json(finishSignIn(c, ctx, token, publicUser(user)));
      },
    },
  ];
}
