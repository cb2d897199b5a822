// The activity log: who changed what, when, from where (admins).

import { z } from "zod";
import type { Routes } from "./route.ts";

/** One record of GET /api/activity. */
export const ActivityEntry = z.object({
  id: z.number(),
  /** ISO time. */
  at: z.string(),
  username: z.string(),
  /** "session", "token <name>" or "" (no session: a failed sign-in). */
  via: z.string(),
  address: z.string(),
  user_agent: z.string(),
  /** "POST /api/saves/upload", "console", "sign-in"... */
  action: z.string(),
  detail: z.string(),
  status: z.number(),
  /** The server acted on (null: a panel-wide action, such as a user added or a sign-in). */
  server: z.number().nullable(),
});
export type ActivityEntry = z.infer<typeof ActivityEntry>;

export const activityRoutes = {
  "GET /api/activity": {
    summary: "The activity log, newest first, filtered and paged; ?format=csv answers it as CSV",
    role: "admin",
    query: z.object({
      user: z.string().optional(),
      action: z.string().optional(),
      /** An ISO time or a day (YYYY-MM-DD). */
      from: z.string().optional(),
      /** An ISO time or a day (YYYY-MM-DD, up to its end). */
      to: z.string().optional(),
      /** The id of the oldest record of the page before: the records older than it. */
      before: z.string().optional(),
      limit: z.string().optional(),
      /** Only the records of this server id. */
      server: z.string().optional(),
      format: z.literal("csv").optional(),
    }),
    answer: z.array(ActivityEntry),
  },
} satisfies Routes;
