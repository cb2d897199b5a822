import { call } from "./client.ts";
import type { NewServer, ServerChange, ServerDeletion } from "../../../shared/contract/servers.ts";

/** The panel's servers (several Factorio servers from one panel). */
export const serversApi = {
  list: (quiet = true) => call("GET /api/servers", {}, { quiet }),
  add: (body: NewServer) => call("POST /api/servers", { body }),
  change: (id: number, body: ServerChange) => call("PATCH /api/servers/:id", { params: { id }, body }),
  remove: (id: number, body: ServerDeletion) => call("DELETE /api/servers/:id", { params: { id }, body }),
};
