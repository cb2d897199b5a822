// User management.

import type { AppContext } from "../boot/context.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { clearSessionCookie, clientOf, setSessionCookie } from "./auth.ts";
import { type Route, route, sessionOf } from "./routes.ts";

export function userRoutes(ctx: AppContext): Route[] {
  const { accounts } = ctx;
  return [
    route("GET /api/user/list", () => accounts.list()),
    route("POST /api/user/add", async (c, { body }) => {
      const user = await accounts.add(body);
      c.set("activity", { detail: `${user.username} (${user.role})` });
      return `User: ${user.username} successfully added.`;
    }),
    route("POST /api/user/remove", async (c, { body }) => {
      const me = sessionOf(c);
      const removed = accounts.remove(body, me.user);
      c.set("activity", { detail: removed });
      if (removed.toLowerCase() === me.user.username.toLowerCase()) clearSessionCookie(c);
      return `User: ${removed} successfully removed.`;
    }),
    // Everyone changes their own password; a script's token may not.
    route("POST /api/user/password", async (c, { body }) => {
      const token = await accounts.changePassword(sessionOf(c), body, clientOf(c));
      setSessionCookie(c, token, accounts.sessionSeconds);
      return true as const;
    }, { beforeEnrolment: true }),
    route("POST /api/user/role", async (c, { body }) => {
      const { username, role } = accounts.setRole(body);
      c.set("activity", { detail: `${username} -> ${role}` });
      return ACCESS_MSG.roleChanged(username, role);
    }),
    route("POST /api/user/servers", (c, { body }) => {
      const { username, detail } = accounts.setServers(body);
      c.set("activity", { detail: `${username}: ${detail}` });
      return ACCESS_MSG.serverRolesChanged(username);
    }),
  ];
}
