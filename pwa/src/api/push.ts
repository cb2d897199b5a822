import { api, type RequestOptions } from "./client.ts";
import type { PushDevice, PushDeviceUpdate, PushKey, PushSubscribeRequest, PushTestResult } from "../../../shared/api.ts";

export const pushApi = {
  key: () => api.get<PushKey>("/api/push/key"),
  devices: () => api.get<PushDevice[]>("/api/push/devices"),
  subscribe: (body: PushSubscribeRequest) => api.post<PushDevice>("/api/push/subscribe", body),
  unsubscribe: (target: { id: number } | { endpoint: string }, opts?: RequestOptions) =>
    api.post<string>("/api/push/unsubscribe", target, opts),
  update: (id: number, change: PushDeviceUpdate) => api.post<PushDevice>(`/api/push/devices/${id}`, change),
  test: (id?: number) => api.post<PushTestResult[]>("/api/push/test", id === undefined ? {} : { id }),
};
