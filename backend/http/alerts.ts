// Alert channels (Notifications page): list, add, change, delete, and "Send test". Panel-wide: every
// admin sees and manages the same channels. Secrets never leave: answers carry masked URLs only, and
// a webhook's HMAC secret once, in the answer that created it.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Route } from "./routes.ts";
import { NotFound } from "../errors.ts";
import { CHANNEL_MSG } from "../../shared/messages.ts";

function channelId(raw: string | undefined): number {
  const id = /^\d{1,15}$/.test(raw ?? "") ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(CHANNEL_MSG.notFound);
  return id;
}

export function alertRoutes(ctx: AppContext): Route[] {
  const { channels } = ctx.alerts;
  return [
    {
      method: "GET",
      path: "/api/notifications/channels",
      // Channels hold webhook secrets and reach everyone: panel admins only.
      role: "admin",
      handler: (c) => c.json(channels.list()),
    },
    {
      method: "POST",
      path: "/api/notifications/channels",
      role: "admin",
      handler: async (c) => c.json(channels.create(await readObject(c))),
    },
    {
      method: "POST",
      path: "/api/notifications/channels/:id/test",
      role: "admin",
      handler: async (c) => c.json(await channels.test(channelId(c.req.param("id")))),
    },
    {
      method: "POST",
      path: "/api/notifications/channels/:id/delete",
      role: "admin",
      handler: (c) => c.json(channels.delete(channelId(c.req.param("id")))),
    },
    {
      method: "POST",
      path: "/api/notifications/channels/:id",
      role: "admin",
      handler: async (c) => {
        const id = channelId(c.req.param("id"));
        return c.json(channels.update(id, await readObject(c)));
      },
    },
  ];
}
