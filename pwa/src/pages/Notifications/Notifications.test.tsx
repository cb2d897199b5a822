import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import Notifications from "./Notifications.tsx";
import { connection } from "../../state/connection.ts";
import { session } from "../../state/session.ts";
import type { PushDevice } from "../../../../shared/api.ts";

const PHONE: PushDevice = {
  id: 1,
  name: "Phone",
  endpoint: "https://push.example.org/1",
  events: ["crashed"],
  servers: null,
  created_at: "2026-01-01T00:00:00.000Z",
  last_success_at: null,
  last_error: null,
  quiet_hours: null,
};

describe("Notifications page", { timeout: 30_000 }, () => {
  let urls: string[];
  let sent: [string, unknown][];
  /** GET /api/servers: null answers 404, as a panel without the servers list does. */
  let serverList: { id: number; name: string }[] | null;
  beforeEach(() => {
    urls = [];
    sent = [];
    serverList = null;
    connection.online = true;
    session.user = { username: "viewer1", role: "viewer" } as typeof session.user;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        urls.push(url);
        if (url === "/api/push/devices") return Response.json([PHONE]);
        if (url === "/api/servers" && serverList) return Response.json(serverList);
        if (url === "/api/push/devices/1" && init?.method === "POST") {
          const body = JSON.parse(String(init.body));
          sent.push([url, body]);
          return Response.json({ ...PHONE, ...body });
        }
        return Response.json("not here", { status: 404 });
      }),
    );
  });
  afterEach(() => {
    // Unmounted first: with no user the page would show the admin's channels and ask the real network.
    cleanup();
    vi.unstubAllGlobals();
    connection.online = true;
    session.user = null;
  });

  it("asks for the devices once on arrival, and again when the connection comes back", async () => {
    render(
      <MemoryRouter>
        <Notifications />
      </MemoryRouter>,
    );
    expect(await screen.findByText("Phone")).toBeTruthy();
    const asked = () => urls.filter((u) => u === "/api/push/devices").length;
    expect(asked()).toBe(1);
    connection.online = false;
    await new Promise((r) => setTimeout(r, 50));
    expect(asked()).toBe(1);
    connection.online = true;
    await waitFor(() => expect(asked()).toBe(2));
  });

  it("without a servers list (404) there is one server and no choice to make", async () => {
    render(
      <MemoryRouter>
        <Notifications />
      </MemoryRouter>,
    );
    const row = await screen.findByRole("listitem", { name: "Phone" });
    await waitFor(() => expect(urls).toContain("/api/servers"));
    expect(within(row).queryByText("Servers")).toBeNull();
    expect(within(row).queryByRole("checkbox", { name: "All servers" })).toBeNull();
  });

  it("with two servers, a device gets all of them or the ones ticked", async () => {
    serverList = [
      { id: 1, name: "Main map" },
      { id: 2, name: "Space map" },
    ];
    render(
      <MemoryRouter>
        <Notifications />
      </MemoryRouter>,
    );
    const group = await screen.findByRole("group", { name: "Servers for Phone" });
    const all = within(group).getByRole("checkbox", { name: "All servers" }) as HTMLInputElement;
    expect(all.checked).toBe(true);
    fireEvent.click(all);
    await waitFor(() => expect(sent.at(-1)).toEqual(["/api/push/devices/1", { servers: [1, 2] }]));
    fireEvent.click(within(group).getByRole("checkbox", { name: "Space map" }));
    await waitFor(() => expect(sent.at(-1)).toEqual(["/api/push/devices/1", { servers: [1] }]));
    const space = within(group).getByRole("checkbox", { name: "Space map" }) as HTMLInputElement;
    expect(space.checked).toBe(false);
    fireEvent.click(within(group).getByRole("checkbox", { name: "All servers" }));
    await waitFor(() => expect(sent.at(-1)).toEqual(["/api/push/devices/1", { servers: null }]));
  });
});
