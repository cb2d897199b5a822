// A server as GET /api/servers lists it, for the tests of the pages that show servers.

import type { ServerSummary } from "../../../shared/contract/servers.ts";

export function serverSummary(id: number, name: string, more: Partial<ServerSummary> = {}): ServerSummary {
  return {
    id,
    name,
    status: "stopped",
    port: 34196 + id,
    rcon_port: 27014 + id,
    version: "2.0.72",
    players_online: 0,
    started_at: null,
    last_event: null,
    role: "admin",
    dir: "",
    ...more,
  };
}
