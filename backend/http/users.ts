// User management.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Route } from "./routes.ts";
import { sessionOf } from "./routes.ts";
import { clientOf, setSessionCookie } from "./auth.ts";

export function userRoutes(ctx: AppContext): Route[] {
  const { accounts } = ctx;
  return [
    {
      method: "GET",
      path: "/api/user/list",
      handler: (c) => c.json(accounts.list()),
    },
    {
      method: "POST",
      path: "/api/user/add",
      handler: async (c) => {
        const user = await accounts.add(await readObject(c));
        return c.json(`User: ${user.username} successfully added.`);
      },
    },
    {
      method: "POST",
      path: "/api/user/remove",
      handler: async (c) => {
        const removed = accounts.remove(await readObject(c), sessionOf(c).user);
        return c.json(`User: ${removed} successfully removed.`);
      },
    },
    {
      method: "POST",
      path: "/api/user/password",
      handler: async (c) => {
        const token = await accounts.changePassword(sessionOf(c), await readObject(c), clientOf(c));
        setSessionCookie(c, token, accounts.sessionSeconds);
        return c.json(true);
      },
    },
  ];
}
