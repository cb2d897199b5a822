import { call, type RequestOptions } from "./client.ts";
import type { PushDeviceUpdate, PushSubscribeRequest } from "../../../shared/api.ts";

export const pushApi = {
  key: () => call("GET /api/push/key"),
  devices: () => call("GET /api/push/devices"),
  subscribe: (body: PushSubscribeRequest) => call("POST /api/push/subscribe", { body }),
  unsubscribe: (target: { id: number } | { endpoint: string }, opts?: RequestOptions) =>
    call("POST /api/push/unsubscribe", { body: target }, opts),
  update: (id: number, change: PushDeviceUpdate) =>
    call("POST /api/push/devices/:id", { params: { id }, body: change }),
  test: (id?: number) => call("POST /api/push/test", { body: id === undefined ? {} : { id } }),
};
