// The caller's own access: API tokens and signed-in sessions. Every route here needs a person signed in
// in a browser (a token cannot mint or revoke tokens), and any role may manage its own; admins may list
// and revoke everyone's.

import type { AppContext } from "../boot/context.ts";
import { NotFound } from "../lib/errors.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { clearSessionCookie } from "./auth.ts";
import { type Route, route, sessionOf } from "./routes.ts";

function idParam(raw: string | undefined, missing: string): number {
  const id = /^\d{1,15}$/.test(raw ?? "") ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(missing);
  return id;
}

export function accessRoutes(ctx: AppContext): Route[] {
  const { tokens, access } = ctx;
  return [
    // Admins see everyone's with ?all=1, to revoke a script's token for someone who left.
    route("GET /api/user/tokens", (c) => {
      const s = sessionOf(c);
      return tokens.list(c.req.query("all") === "1" && s.role === "admin" ? null : s.user.id);
    }, { beforeEnrolment: true }),
    route("POST /api/user/tokens", async (c, { body }) => {
      const s = sessionOf(c);
      // The token's ceiling is the user's strongest role on the servers it covers.
      const { token, info } = access.createToken(s, body);
      const where = info.servers ? `, servers ${info.servers.join(", ")}` : "";
      c.set("activity", { detail: `${info.name} (${info.role}${where})` });
      return { token, ...info };
    }),
    route("POST /api/user/tokens/:id/revoke", (c) => {
      const id = idParam(c.req.param("id"), ACCESS_MSG.tokenNotFound);
      const s = sessionOf(c);
      tokens.revoke(s.user.id, id, s.role === "admin");
      ctx.bus.emit("sessions.revoked", { sessionIds: [`token:${id}`] });
      return ACCESS_MSG.tokenRevoked;
    }, { beforeEnrolment: true }),
    // Admins see everyone's with ?all=1, to end a lost phone's session for its owner.
    route("GET /api/user/sessions", (c) => {
      const s = sessionOf(c);
      return access.sessions(s, c.req.query("all") === "1" && s.role === "admin");
    }, { beforeEnrolment: true }),
    route("POST /api/user/sessions/:id/revoke", (c) => {
      const s = sessionOf(c);
      const id = idParam(c.req.param("id"), ACCESS_MSG.sessionNotFound);
      const mine = access.sessions(s, false).find((e) => e.id === id);
      access.revokeSession(s, id);
      if (mine?.current) clearSessionCookie(c);
      return ACCESS_MSG.sessionRevoked;
    }, { beforeEnrolment: true }),
  ];
}
