import { call } from "./client.ts";

export const versionsApi = {
  list: (quiet = false) => call("GET /api/factorio/versions", {}, { quiet }),
  /** Answers 202 once the install runs; progress arrives on the "factorio_versions" room. */
  install: (version: string) => call("POST /api/factorio/install", { body: { version } }),
  cancel: () => call("POST /api/factorio/install/cancel"),
  activate: (version: string) => call("POST /api/factorio/activate", { body: { version } }),
  remove: (version: string) => call("DELETE /api/factorio/versions/:version", { params: { version } }),
  check: () => call("POST /api/factorio/check"),
  /** Update (& restart when the server runs) to `version` or the newest of the active channel. */
  update: (version?: string) => call("POST /api/factorio/update", { body: version ? { version } : {} }),
  cancelUpdate: () => call("POST /api/factorio/update/cancel"),
};
