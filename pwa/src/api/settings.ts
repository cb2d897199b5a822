import { api, type RequestOptions } from "./client.ts";
import type { Settings } from "../../../shared/settings.ts";
import type { OnlinePlayers, PlayerLists } from "../../../shared/api.ts";
import type { PlayerList } from "../../../shared/players.ts";

export type ConfigGroups = Record<string, Record<string, string>>;

export const settingsApi = {
  get: () => api.get<Settings>("/api/settings"),
  update: (settings: Settings) => api.post<string>("/api/settings/update", settings),
  config: (opts?: RequestOptions) => api.get<ConfigGroups>("/api/config", opts),
};

export const playersApi = {
  lists: () => api.get<PlayerLists>("/api/players"),
  add: (list: PlayerList, username: string, reason?: string) =>
    api.post<PlayerLists>(`/api/players/${list}/add`, reason === undefined ? { username } : { username, reason }),
  remove: (list: PlayerList, username: string) => api.post<PlayerLists>(`/api/players/${list}/remove`, { username }),
  useWhitelist: (enabled: boolean) => api.post<PlayerLists>("/api/players/whitelist/use", { enabled }),
  online: (opts?: RequestOptions) => api.get<OnlinePlayers>("/api/players/online", opts),
  kick: (username: string, reason: string) => api.post<string>("/api/players/kick", { username, reason }),
};
