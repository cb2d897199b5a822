import { api, request } from "./client.ts";
import type { UpdateInfo, VersionsAnswer } from "../../../shared/factorio-versions.ts";

export const versionsApi = {
  list: (quiet = false) => api.get<VersionsAnswer>("/api/factorio/versions", { quiet }),
  /** Answers 202 once the install runs; progress arrives on the "factorio_versions" room. */
  install: (version: string) => api.post<string>("/api/factorio/install", { version }),
  cancel: () => api.post<string>("/api/factorio/install/cancel"),
  activate: (version: string) => api.post<string>("/api/factorio/activate", { version }),
  remove: (version: string) => request<string>("DELETE", `/api/factorio/versions/${encodeURIComponent(version)}`),
  check: () => api.post<UpdateInfo | null>("/api/factorio/check"),
  /** Update (& restart when the server runs) to `version` or the newest of the active channel. */
  update: (version?: string) => api.post<string>("/api/factorio/update", version ? { version } : {}),
  cancelUpdate: () => api.post<string>("/api/factorio/update/cancel"),
};
