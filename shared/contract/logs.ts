// The game's log: its last lines, and the whole file.

import { z } from "zod";
import { file, type Routes } from "./route.ts";

export const logRoutes = {
  "GET /api/log/tail": {
    summary: "The last lines of the game's log (?lines=N, 1000 unless asked, at most 10000)",
    role: "viewer",
    query: z.object({ lines: z.string().optional() }),
    answer: z.array(z.string()),
  },
  "GET /api/log/download": { summary: "The game's whole log", role: "viewer", answer: file("text/plain") },
} satisfies Routes;
