import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
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
  beforeEach(() => {
    urls = [];
    connection.online = true;
    session.user = { username: "viewer1", role: "viewer" } as typeof session.user;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        urls.push(url);
        if (url === "/api/push/devices") return Response.json([PHONE]);
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
});
