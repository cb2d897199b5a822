// Web Push: the public VAPID key, the signed-in user's devices, and the test notification. Every route
// acts on the caller's own devices only.

import type { AppContext } from "../boot/context.ts";
import { NotFound } from "../lib/errors.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { type Route, route, sessionOf } from "./routes.ts";

function deviceId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(PUSH_MSG.deviceNotFound);
  return id;
}

export function pushRoutes(ctx: AppContext): Route[] {
  const { push } = ctx;
  return [
    // Alerts to one's own devices: any role may have them.
    route("GET /api/push/key", () => ({ publicKey: push.publicKey })),
    // Alerts to one's own devices: any role may have them.
    route("GET /api/push/devices", (c) => push.devices(sessionOf(c).user.id)),
    // Alerts to one's own devices: any role may have them.
    route("POST /api/push/subscribe", async (c, { body }) => {
      return await push.subscribe(sessionOf(c).user.id, body, c.req.header("user-agent") ?? "");
    }),
    // Alerts to one's own devices: any role may have them.
    route("POST /api/push/unsubscribe", async (c, { body }) => {
      push.unsubscribe(sessionOf(c).user.id, body);
      return PUSH_MSG.deviceRemoved;
    }),
    // Alerts to one's own devices: any role may have them.
    route("POST /api/push/devices/:id", async (c, { body }) => {
      return push.update(sessionOf(c).user.id, deviceId(c.req.param("id") ?? ""), body);
    }),
    // Alerts to one's own devices: any role may have them.
    route("POST /api/push/test", async (c, { body }) => await push.test(sessionOf(c).user.id, body)),
  ];
}
