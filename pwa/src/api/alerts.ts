import { api } from "./client.ts";
import type {
  AlertChannel,
  AlertChannelUpdate,
  ChannelTestResult,
  ChatLine,
  CreatedAlertChannel,
  NewAlertChannel,
  OnlineCountSample,
  PlayerHistoryRow,
} from "../../../shared/alerts.ts";

export const channelsApi = {
  list: () => api.get<AlertChannel[]>("/api/notifications/channels"),
  create: (body: NewAlertChannel) => api.post<CreatedAlertChannel>("/api/notifications/channels", body),
  update: (id: number, change: AlertChannelUpdate) => api.post<AlertChannel>(`/api/notifications/channels/${id}`, change),
  test: (id: number) => api.post<ChannelTestResult>(`/api/notifications/channels/${id}/test`, {}),
  remove: (id: number) => api.post<string>(`/api/notifications/channels/${id}/delete`, {}),
};

export const playerHistoryApi = {
  history: () => api.get<PlayerHistoryRow[]>("/api/players/history"),
  chat: (q: string) => api.get<ChatLine[]>(`/api/players/chat?q=${encodeURIComponent(q)}`),
  onlineCounts: (hours: number) => api.get<OnlineCountSample[]>(`/api/players/online-counts?hours=${hours}`),
};
