import { call, type RequestOptions } from "./client.ts";
import type { Settings } from "../../../shared/settings.ts";
import type { PlayerList } from "../../../shared/players.ts";

export const settingsApi = {
  get: () => call("GET /api/settings"),
  update: (settings: Settings) => call("POST /api/settings/update", { body: settings }),
  config: (opts?: RequestOptions) => call("GET /api/config", {}, opts),
};

export const playersApi = {
  lists: () => call("GET /api/players"),
  /** `reason`: of a ban. */
  add: (list: PlayerList, username: string, reason?: string) =>
    list === "bans"
      ? call("POST /api/players/bans/add", {
        body: reason === undefined ? { username } : { username, reason },
      })
      : call(`POST /api/players/${list}/add`, { body: { username } }),
  remove: (list: PlayerList, username: string) =>
    call(`POST /api/players/${list}/remove`, { body: { username } }),
  useWhitelist: (enabled: boolean) => call("POST /api/players/whitelist/use", { body: { enabled } }),
  online: (opts?: RequestOptions) => call("GET /api/players/online", {}, opts),
  kick: (username: string, reason: string) => call("POST /api/players/kick", { body: { username, reason } }),
};
