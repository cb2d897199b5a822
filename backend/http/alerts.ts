// Alert channels (Notifications page): list, add, change, delete, and "Send test". Panel-wide: every
// admin sees and manages the same channels. Secrets never leave: answers carry masked URLs only, and
// a webhook's HMAC secret once, in the answer that created it.

import type { AppContext } from "../boot/context.ts";
import { NotFound } from "../lib/errors.ts";
import { CHANNEL_MSG } from "../../shared/messages.ts";
import { type Route, route } from "./routes.ts";

function channelId(raw: string | undefined): number {
  const id = /^\d{1,15}$/.test(raw ?? "") ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(CHANNEL_MSG.notFound);
  return id;
}

export function alertRoutes(ctx: AppContext): Route[] {
  const { channels } = ctx.alerts;
  return [
    // Channels hold webhook secrets and reach everyone: panel admins only.
    route("GET /api/notifications/channels", () => channels.list()),
    route("POST /api/notifications/channels", async (_c, { body }) => channels.create(body)),
    route(
      "POST /api/notifications/channels/:id/test",
      async (c) => await channels.test(channelId(c.req.param("id"))),
    ),
    route(
      "POST /api/notifications/channels/:id/delete",
      (c) => channels.delete(channelId(c.req.param("id"))),
    ),
    route("POST /api/notifications/channels/:id", async (c, { body }) => {
      const id = channelId(c.req.param("id"));
      return channels.update(id, body);
    }),
  ];
}
