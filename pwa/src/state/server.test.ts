// The status store with several servers: each server's status is kept (and remembered for offline) on its
// own, and what the badge and the pages read is the status of the server shown.
import { afterEach, describe, expect, it } from "vitest";
import { applyStatus, knownStatus, server, showServer, statuses } from "./server.ts";
import { current } from "./current.ts";
import type { ServerStatus } from "../../../shared/api.ts";

function status(state: ServerStatus["status"], save: string): ServerStatus {
  return {
    status: state,
    running: state === "running",
    address: "",
    bindip: "0.0.0.0",
    port: 34197,
    savefile: save,
    fac_version: "2.0.72",
    base_mod_version: "2.0.72",
    since: new Date().toISOString(),
    last_exit: null,
    started_at: null,
    factorio_found: true,
    factorio_dir: "/f",
    problems: [],
    last_start: null,
  };
}

describe("server status per server", () => {
  afterEach(() => {
    showServer(1);
    for (const id of Object.keys(statuses)) delete statuses[Number(id)];
  });

  it("keeps each server's status apart; the shown one is what the badge reads", () => {
    applyStatus(status("running", "main.zip"), 1);
    applyStatus(status("stopped", "space.zip"), 2);
    expect(server.status?.savefile).toBe("main.zip");
    showServer(2);
    expect(current.server).toBe(2);
    expect(server.status?.savefile).toBe("space.zip");
    // A push about server 1 while server 2 is shown does not change what is shown.
    applyStatus(status("stopping", "main.zip"), 1);
    expect(server.status?.status).toBe("stopped");
    expect(knownStatus(1).status?.status).toBe("stopping");
    // Without a server named, a status is the shown server's.
    applyStatus(status("starting", "space.zip"));
    expect(server.status?.status).toBe("starting");
    expect(knownStatus(2).status?.status).toBe("starting");
  });

  it("remembers the last status per server for offline, server 1 under today's key", () => {
    applyStatus(status("running", "main.zip"), 1);
    applyStatus(status("stopped", "space.zip"), 2);
    expect(JSON.parse(localStorage.getItem("panel.lastStatus")!).status.savefile).toBe("main.zip");
    expect(JSON.parse(localStorage.getItem("panel.lastStatus.2")!).status.savefile).toBe("space.zip");
    // A fresh start of the app (nothing in memory) finds each one again.
    delete statuses[2];
    expect(knownStatus(2).lastKnown?.status.savefile).toBe("space.zip");
    expect(knownStatus(2).status).toBeNull();
  });
});
