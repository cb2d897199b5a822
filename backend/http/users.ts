// User management.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Route } from "./routes.ts";
import { sessionOf } from "./routes.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { clearSessionCookie, clientOf, setSessionCookie } from "./auth.ts";

export function userRoutes(ctx: AppContext): Route[] {
  const { accounts } = ctx;
  return [
    {
      method: "GET",
      path: "/api/user/list",
      role: "admin",
      handler: (c) => c.json(accounts.list()),
    },
    {
      method: "POST",
      path: "/api/user/add",
      role: "admin",
      handler: async (c) => {
        const user = await accounts.add(await readObject(c));
        c.set("activity", { detail: `${user.username} (${user.role})` });
        return c.json(`User: ${user.username} successfully added.`);
      },
    },
    {
      method: "POST",
      path: "/api/user/remove",
      role: "admin",
      handler: async (c) => {
        const me = sessionOf(c);
        const removed = accounts.remove(await readObject(c), me.user);
        c.set("activity", { detail: removed });
        if (removed.toLowerCase() === me.user.username.toLowerCase()) clearSessionCookie(c);
        return c.json(`User: ${removed} successfully removed.`);
      },
    },
    {
      method: "POST",
      path: "/api/user/password",
      // Everyone changes their own password; a script's token may not.
      role: "viewer",
      interactive: true,
      beforeEnrolment: true,
      handler: async (c) => {
        const token = await accounts.changePassword(sessionOf(c), await readObject(c), clientOf(c));
        setSessionCookie(c, token, accounts.sessionSeconds);
        return c.json(true);
      },
    },
    {
      method: "POST",
      path: "/api/user/role",
      role: "admin",
      handler: async (c) => {
        const { username, role } = accounts.setRole(await readObject(c));
        c.set("activity", { detail: `${username} -> ${role}` });
        return c.json(ACCESS_MSG.roleChanged(username, role));
      },
    },
  ];
}
