// The activity log over HTTP: the recorder every route of the table passes through, and the admin's
// query (JSON, or CSV for a spreadsheet).

import type { MiddlewareHandler } from "hono";
import type { AppContext } from "../boot/context.ts";
import { ACTIVITY_LIMIT_DEFAULT, activityCsv, type ActivityLog } from "../activity/log.ts";
import { Invalid } from "../lib/errors.ts";
import { changesState, type Env, otherForm, type Route, route } from "./routes.ts";

/**
 * Records each state-changing request once the answer is known (also errors: onError has set the
 * response by then). Requests that name nobody (no session, no sign-in name) are not recorded: a scanner
 * hitting the API must not fill the log. A row that cannot be written (a full disk) is reported to `warn`
 * and leaves the answer as it was: what happened, happened.
 */
export function recordActivity(
  log: ActivityLog,
  route: Route,
  warn: (message: string, fields: Record<string, unknown>) => void = () => {},
): MiddlewareHandler<Env> {
  const action = `${route.method} ${route.path}`;
  const logged = changesState(route);
  return async (c, next) => {
    c.set("activity", undefined);
    await next();
    if (!logged) return;
    const session = c.get("session");
    const note = c.get("activity");
    const username = note?.user ?? session?.user.username;
    if (!username) return;
    // Someone not signed in, refused by the sign-in limit: counted, not a record each (a flood of them
    // would fill the log and the disk).
    if (!session && c.res.status === 429) {
      log.recordRefused({
        address: c.get("clientAddress"),
        username,
        userAgent: c.req.header("user-agent") ?? "",
      });
      return;
    }
    // A server's route is recorded as its /api/R path with the server beside it.
    const server = c.get("server");
    const path = server ? c.req.path.replace(/^\/api\/servers\/\d+\//, "/api/") : c.req.path;
    const target = path !== route.path ? decodeURIComponent(path) : "";
    try {
      log.record({
        username,
        via: session ? (session.via === "token" ? `token ${session.token?.name ?? ""}` : "session") : "",
        address: c.get("clientAddress"),
        userAgent: c.req.header("user-agent") ?? "",
        action,
        detail: [note?.detail, target].filter(Boolean).join(" "),
        status: c.res.status,
        server: server?.id ?? null,
      });
    } catch (e) {
      warn("Could not record the activity", { action, status: c.res.status, error: String(e) });
    }
  };
}

/** A date bound from the query: an ISO time or a day (YYYY-MM-DD, which as `to` means its end). */
function bound(raw: string | undefined, end: boolean): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const t = Date.parse(day ? raw + "T00:00:00Z" : raw);
  if (Number.isNaN(t)) throw new Invalid(`"${raw}" is not a date (use YYYY-MM-DD)`);
  return day && end ? t + 24 * 3600_000 - 1 : t;
}

export function activityRoutes(ctx: AppContext): Route[] {
  return [
    route("GET /api/activity", (c) => {
      const q = c.req.query();
      const limit = q.limit === undefined ? ACTIVITY_LIMIT_DEFAULT : Number(q.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new Invalid("limit must be a whole number above 0");
      // Paging: the id of the oldest record of the page before, for the records older than it.
      const before = q.before === undefined ? undefined : Number(q.before);
      if (before !== undefined && (!Number.isSafeInteger(before) || before < 1)) {
        throw new Invalid("before must be the id of a record");
      }
      const server = q.server === undefined ? undefined : Number(q.server);
      if (server !== undefined && (!/^\d{1,9}$/.test(q.server!) || server < 1)) {
        throw new Invalid("server must be the id of a server");
      }
      const entries = ctx.activity.query({
        server,
        user: q.user?.trim() || undefined,
        action: q.action?.trim() || undefined,
        from: bound(q.from, false),
        to: bound(q.to, true),
        before,
        limit,
      });
      if (q.format === "csv") {
        return otherForm(c.body(activityCsv(entries), 200, {
          "Content-Type": "text/csv; charset=utf-8",
          "Content-Disposition": 'attachment; filename="activity.csv"',
        }));
      }
      return entries;
    }),
  ];
}
