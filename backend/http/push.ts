// Web Push: the public VAPID key, the signed-in user's devices, and the test notification. Every route
// acts on the caller's own devices only.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Route } from "./routes.ts";
import { sessionOf } from "./routes.ts";
import { NotFound } from "../errors.ts";
import { PUSH_MSG } from "../../shared/messages.ts";

function deviceId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(PUSH_MSG.deviceNotFound);
  return id;
}

export function pushRoutes(ctx: AppContext): Route[] {
  const { push } = ctx;
  return [
    {
      method: "GET",
      // Alerts to one's own devices: any role may have them.
      role: "viewer",
      path: "/api/push/key",
      handler: (c) => c.json({ publicKey: push.publicKey }),
    },
    {
      method: "GET",
      // Alerts to one's own devices: any role may have them.
      role: "viewer",
      path: "/api/push/devices",
      handler: (c) => c.json(push.devices(sessionOf(c).user.id)),
    },
    {
      method: "POST",
      // Alerts to one's own devices: any role may have them.
      role: "viewer",
      path: "/api/push/subscribe",
      handler: async (c) => {
        const body = await readObject(c);
        return c.json(await push.subscribe(sessionOf(c).user.id, body, c.req.header("user-agent") ?? ""));
      },
    },
    {
      method: "POST",
      // Alerts to one's own devices: any role may have them.
      role: "viewer",
      path: "/api/push/unsubscribe",
      handler: async (c) => {
        push.unsubscribe(sessionOf(c).user.id, await readObject(c));
        return c.json(PUSH_MSG.deviceRemoved);
      },
    },
    {
      method: "POST",
      // Alerts to one's own devices: any role may have them.
      role: "viewer",
      path: "/api/push/devices/:id",
      handler: async (c) => {
        const body = await readObject(c);
        return c.json(push.update(sessionOf(c).user.id, deviceId(c.req.param("id") ?? ""), body));
      },
    },
    {
      method: "POST",
      // Alerts to one's own devices: any role may have them.
      role: "viewer",
      path: "/api/push/test",
      handler: async (c) => c.json(await push.test(sessionOf(c).user.id, await readObject(c))),
    },
  ];
}
