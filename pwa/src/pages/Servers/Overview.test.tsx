// The overview draws every card from the servers list: a server that does not answer keeps its card with
// what was last known, and never holds the others' cards or buttons.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import Overview from "./Overview.tsx";
import { PANEL_HEADER } from "../../api/client.ts";
import { applyServers, serverList } from "../../state/servers.ts";
import { connection } from "../../state/connection.ts";
import { session } from "../../state/session.ts";
import { VIEWER_NOTE } from "../../state/access.ts";
import type { ServerSummary } from "../../../../shared/contract/servers.ts";
import type { Role } from "../../../../shared/api.ts";

function summary(
  id: number,
  name: string,
  status: ServerSummary["status"],
  role: Role = "admin",
): ServerSummary {
  return {
    id,
    name,
    status,
    port: 34196 + id,
    rcon_port: 27014 + id,
    version: "2.0.72",
    players_online: status === "running" ? 3 : 0,
    started_at: status === "running" ? new Date(Date.now() - 2 * 3600_000).toISOString() : null,
    last_event: { at: new Date().toISOString(), text: `event of ${name}` },
    role,
    dir: "",
  };
}

const LIST = [
  summary(1, "Main", "running"),
  summary(2, "Space Age", "running"),
  summary(3, "Test map", "stopped"),
];

const sent: string[] = [];
const LAST_START = { bindip: "0.0.0.0", port: 34199, savefile: "test.zip" };

/** The panel: server 2 never answers anything; the others do. */
function panel(list: ServerSummary[]) {
  vi.stubGlobal(
    "fetch",
    vi.fn((url: string, init?: RequestInit) => {
      sent.push(`${init?.method ?? "GET"} ${url}`);
      if (url.startsWith("/api/servers/2/")) return new Promise<Response>(() => {});
      const ok = (body: unknown) =>
        Promise.resolve(
          new Response(JSON.stringify(body), { status: 200, headers: { [PANEL_HEADER]: "1" } }),
        );
      if (url === "/api/servers") return ok(list);
      if (url.endsWith("/server/status")) return ok({ status: "stopped", last_start: LAST_START });
      if (url.endsWith("/server/start")) return ok("Server started");
      return ok("done");
    }),
  );
}

function show() {
  return render(
    <MemoryRouter>
      <Overview />
    </MemoryRouter>,
  );
}

describe("Overview", () => {
  beforeEach(() => {
    sent.splice(0);
    session.user = { username: "admin", role: "admin", email: "" };
  });
  afterEach(() => {
    // Unmounted first: the layout asks again when the user changes, which must not reach the network.
    cleanup();
    vi.unstubAllGlobals();
    serverList.list = null;
    serverList.at = null;
    connection.online = true;
    session.user = null;
  });

  it("shows every server's card at once, and a server that hangs holds no one else's buttons", async () => {
    panel(LIST);
    show();
    const cards = await screen.findAllByTestId(/^server-card-/);
    expect(cards.map((c) => c.getAttribute("aria-label"))).toEqual(["Main", "Space Age", "Test map"]);
    const space = screen.getByTestId("server-card-2");
    expect(within(space).getByTestId("card-players").textContent).toBe("3");
    expect(within(space).getByTestId("card-uptime").textContent).toBe("2 h 0 min");
    expect(within(space).getByTestId("card-last-event").textContent).toMatch(/^event of Space Age/);
    // Save & Stop on server 2: it never answers, its button stays busy ...
    fireEvent.click(within(space).getByRole("button", { name: "Save & Stop" }));
    await waitFor(() => expect(sent).toContain("GET /api/servers/2/server/stop"));
    expect((within(space).getByRole("button", { name: "Save & Stop" }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    // ... while server 3 starts with its last start's settings.
    const test = screen.getByTestId("server-card-3");
    fireEvent.click(within(test).getByRole("button", { name: "Start" }));
    await waitFor(() => expect(sent).toContain("POST /api/servers/3/server/start"));
  });

  it("offline, each card shows the last known list, said so, with its buttons off", () => {
    applyServers(LIST);
    connection.online = false;
    panel(LIST);
    show();
    const card = screen.getByTestId("server-card-1");
    expect(within(card).getByText(/^last known, at/)).toBeTruthy();
    expect((within(card).getByRole("button", { name: "Save & Stop" }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });

  it("a viewer of a server sees its buttons off with the role sentence; an operator of another does not", async () => {
    session.user = { username: "v", role: "viewer", email: "" };
    panel([summary(1, "Main", "stopped", "viewer"), summary(3, "Test map", "stopped", "operator")]);
    show();
    const main = await screen.findByTestId("server-card-1");
    expect((within(main).getByRole("button", { name: "Start" }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(main).getByText(VIEWER_NOTE)).toBeTruthy();
    const test = screen.getByTestId("server-card-3");
    expect((within(test).getByRole("button", { name: "Start" }) as HTMLButtonElement).disabled).toBe(false);
    expect(within(test).queryByText(VIEWER_NOTE)).toBeNull();
  });
});
