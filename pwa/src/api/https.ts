import { call } from "./client.ts";
import type { HttpsSettings } from "../../../shared/https.ts";

export const httpsApi = {
  state: () => call("GET /api/https"),
  // Quiet: the page shows the CA's reason itself, which is too long for a flash.
  configure: (body: HttpsSettings) => call("POST /api/https", { body }, { quiet: true }),
  renew: () => call("POST /api/https/renew", {}, { quiet: true }),
};
