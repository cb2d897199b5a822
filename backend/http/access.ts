// The caller's own access: API tokens and signed-in sessions. Every route here needs a person signed in
// in a browser (a token cannot mint or revoke tokens), and any role may manage its own; admins may list
// and revoke everyone's.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import { type Route, sessionOf } from "./routes.ts";
import { NotFound } from "../errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { clearSessionCookie } from "./auth.ts";

function idParam(raw: string | undefined, missing: string): number {
  const id = /^\d{1,15}$/.test(raw ?? "") ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(missing);
  return id;
}

export function accessRoutes(ctx: AppContext): Route[] {
  const { tokens, access } = ctx;
  const own = { role: "viewer", interactive: true, beforeEnrolment: true } as const;
  return [
    {
      method: "GET",
      path: "/api/user/tokens",
      ...own,
      // Admins see everyone's with ?all=1, to revoke a script's token for someone who left.
      handler: (c) => {
        const s = sessionOf(c);
        return c.json(tokens.list(c.req.query("all") === "1" && s.role === "admin" ? null : s.user.id));
      },
    },
    {
      method: "POST",
      path: "/api/user/tokens",
      ...own,
      beforeEnrolment: false,
      handler: async (c) => {
        const s = sessionOf(c);
        // The token's ceiling is what this session may do, which is the user's role.
        const { token, info } = tokens.create({ id: s.user.id, role: s.role }, await readObject(c));
        c.set("activity", { detail: `${info.name} (${info.role})` });
        return c.json({ token, ...info });
      },
    },
    {
      method: "POST",
      path: "/api/user/tokens/:id/revoke",
      ...own,
      handler: (c) => {
        const id = idParam(c.req.param("id"), ACCESS_MSG.tokenNotFound);
        const s = sessionOf(c);
        tokens.revoke(s.user.id, id, s.role === "admin");
        ctx.bus.emit("sessions.revoked", { sessionIds: [`token:${id}`] });
        return c.json(ACCESS_MSG.tokenRevoked);
      },
    },
    {
      method: "GET",
      path: "/api/user/sessions",
      ...own,
      // Admins see everyone's with ?all=1, to end a lost phone's session for its owner.
      handler: (c) => {
        const s = sessionOf(c);
        return c.json(access.sessions(s, c.req.query("all") === "1" && s.role === "admin"));
      },
    },
    {
      method: "POST",
      path: "/api/user/sessions/:id/revoke",
      ...own,
      handler: (c) => {
        const s = sessionOf(c);
        const id = idParam(c.req.param("id"), ACCESS_MSG.sessionNotFound);
        const mine = access.sessions(s, false).find((e) => e.id === id);
        access.revokeSession(s, id);
        if (mine?.current) clearSessionCookie(c);
        return c.json(ACCESS_MSG.sessionRevoked);
      },
    },
  ];
}
