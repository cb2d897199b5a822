import { call } from "./client.ts";
import type { AlertChannelUpdate, NewAlertChannel } from "../../../shared/alerts.ts";

export const channelsApi = {
  list: () => call("GET /api/notifications/channels"),
  create: (body: NewAlertChannel) => call("POST /api/notifications/channels", { body }),
  update: (id: number, change: AlertChannelUpdate) =>
    call("POST /api/notifications/channels/:id", { params: { id }, body: change }),
  test: (id: number) => call("POST /api/notifications/channels/:id/test", { params: { id } }),
  remove: (id: number) => call("POST /api/notifications/channels/:id/delete", { params: { id } }),
};

export const playerHistoryApi = {
  history: () => call("GET /api/players/history"),
  chat: (q: string) => call("GET /api/players/chat", { query: { q } }),
  onlineCounts: (hours: number) => call("GET /api/players/online-counts", { query: { hours } }),
};
