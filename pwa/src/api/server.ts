import { call, fileUrl } from "./client.ts";
import type { StartRequest } from "../../../shared/api.ts";

export const serverApi = {
  /** Of the server shown, or of `server` (the overview asks each). */
  status: (server?: number) => call("GET /api/server/status", { server }),
  version: () => call("GET /api/server/facVersion", {}, { quiet: true }),
  /** Answers once the game is hosting (or has failed, with its reason). */
  start: (body: StartRequest, server?: number) => call("POST /api/server/start", { body, server }),
  stop: (server?: number) => call("GET /api/server/stop", { server }),
  kill: () => call("GET /api/server/kill"),
  /** Save & stop, then start the same save again; answers once the game hosts again. */
  restart: () => call("POST /api/server/restart"),
  logTail: (lines?: number) => call("GET /api/log/tail", { query: { lines: lines || undefined } }),
  /** The whole log, streamed by the server (a link's target, not fetched by the app; of the server shown). */
  logDownloadUrl: () => fileUrl("GET /api/log/download"),
};
