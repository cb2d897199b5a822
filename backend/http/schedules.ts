// Schedules: list, create, update, delete, run now, and the preview of a cron expression's next runs.

import type { AppContext } from "../boot/context.ts";
import { NotFound } from "../lib/errors.ts";
import { type Ctx, reply, type Route, route, routeCheckedByDomain } from "./routes.ts";
import { objectBody } from "./body.ts";

function scheduleId(c: Ctx): number {
  const raw = c.req.param("id") ?? "";
  if (!/^\d{1,12}$/.test(raw)) throw new NotFound("No such schedule.");
  return Number(raw);
}

export function scheduleRoutes(ctx: AppContext): Route[] {
  const { schedules } = ctx;
  return [
    route("GET /api/schedules", async () => await schedules.list()),
    route("GET /api/schedules/preview", async (c) => await schedules.preview(c.req.query("cron"))),
    // The activity log names the schedule (c.set("activity")): "Ran schedule 'Nightly restart' now".
    routeCheckedByDomain("POST /api/schedules", async (c, { body }) => {
      const made = await schedules.create(objectBody(body));
      c.set("activity", { detail: made.name });
      return reply(c, made, 201);
    }),
    route("GET /api/schedules/:id", async (c) => await schedules.get(scheduleId(c))),
    routeCheckedByDomain("POST /api/schedules/:id/update", async (c, { body }) => {
      const changed = await schedules.update(scheduleId(c), objectBody(body));
      c.set("activity", { detail: changed.name });
      return changed;
    }),
    route("POST /api/schedules/:id/run", async (c) => {
      c.set("activity", { detail: (await schedules.get(scheduleId(c))).name });
      return reply(c, schedules.runNow(scheduleId(c)), 202);
    }),
    route("POST /api/schedules/:id/delete", async (c) => {
      c.set("activity", { detail: (await schedules.get(scheduleId(c))).name });
      schedules.delete(scheduleId(c));
      return null;
    }),
  ];
}
