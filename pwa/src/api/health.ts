import { call } from "./client.ts";
import type { HealthRange, HealthSettings } from "../../../shared/contract/health.ts";

export const healthApi = {
  now: () => call("GET /api/health", undefined, { quiet: true }),
  history: (range: HealthRange) => call("GET /api/health/history", { query: { range } }, { quiet: true }),
  settings: () => call("GET /api/health/settings"),
  update: (body: Partial<HealthSettings>) => call("POST /api/health/settings", { body }),
};
