import { api } from "./client.ts";
import type { HttpsSettings, HttpsState } from "../../../shared/https.ts";

export const httpsApi = {
  state: () => api.get<HttpsState>("/api/https"),
  // Quiet: the page shows the CA's reason itself, which is too long for a flash.
  configure: (settings: HttpsSettings) => api.post<HttpsState>("/api/https", settings, { quiet: true }),
  renew: () => api.post<HttpsState>("/api/https/renew", {}, { quiet: true }),
};
