import { api } from "./client.ts";
import type { FactorioVersionInfo, ServerStatus, StartRequest } from "../../../shared/api.ts";

export const serverApi = {
  status: () => api.get<ServerStatus>("/api/server/status"),
  version: () => api.get<FactorioVersionInfo>("/api/server/facVersion", { quiet: true }),
  /** Answers once the game is hosting (or has failed, with its reason). */
  start: (body: StartRequest) => api.post<string>("/api/server/start", body),
  stop: () => api.get<string>("/api/server/stop"),
  kill: () => api.get<string>("/api/server/kill"),
  /** Save & stop, then start the same save again; answers once the game hosts again. */
  restart: () => api.post<string>("/api/server/restart", {}),
  logTail: (lines?: number) => api.get<string[]>(`/api/log/tail${lines ? `?lines=${lines}` : ""}`),
  /** The whole log, streamed by the server (a link's target, not fetched by the app). */
  logDownloadUrl: "/api/log/download",
};
