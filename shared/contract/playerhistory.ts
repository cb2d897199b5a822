// Player history: each player's sessions summed up, the chat log with search, and how many were online.

import { z } from "zod";
import type { Routes } from "./route.ts";

/** GET /api/players/history: one row per player the panel has seen. */
export const PlayerHistoryRow = z.object({
  name: z.string(),
  first_seen: z.string(),
  last_seen: z.string(),
  play_time_s: z.number(),
  sessions: z.number(),
  online: z.boolean(),
});
export type PlayerHistoryRow = z.infer<typeof PlayerHistoryRow>;

/** GET /api/players/chat?q=: newest first. */
export const ChatLine = z.object({ at: z.string(), name: z.string(), message: z.string() });
export type ChatLine = z.infer<typeof ChatLine>;

/** GET /api/players/online-counts?hours=: how many were online, at each change. */
export const OnlineCountSample = z.object({ at: z.string(), count: z.number() });
export type OnlineCountSample = z.infer<typeof OnlineCountSample>;

export const playerHistoryRoutes = {
  "GET /api/players/history": {
    summary: "Every player the panel has seen",
    role: "viewer",
    answer: z.array(PlayerHistoryRow),
  },
  "GET /api/players/chat": {
    summary: "The chat log, newest first, searched with ?q= (at most 200 characters)",
    role: "viewer",
    query: z.object({ q: z.string().optional() }),
    answer: z.array(ChatLine),
  },
  "GET /api/players/online-counts": {
    summary: "How many players were online over the last ?hours= (24 unless asked, at most 8760)",
    role: "viewer",
    query: z.object({ hours: z.string().optional() }),
    answer: z.array(OnlineCountSample),
  },
} satisfies Routes;
