// The switcher: with several servers the sidebar names the server shown and its links lead to its pages;
// choosing another server keeps the page (Saves -> the other server's Saves). Hidden with one server.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { Layout } from "./Layout.tsx";
import { PANEL_HEADER } from "../api/client.ts";
import { serverList } from "../state/servers.ts";
import { current } from "../state/current.ts";
import { showServer } from "../state/server.ts";
import { session } from "../state/session.ts";
import type { ServerSummary } from "../../../shared/contract/servers.ts";
import { serverSummary } from "../test/servers.ts";

const summary = (id: number, name: string) => serverSummary(id, name);

function Where() {
  return <output data-testid="where">{useLocation().pathname}</output>;
}

function show(at: string, list: ServerSummary[]) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) =>
      new Response(JSON.stringify(url === "/api/servers" ? list : null), {
        status: 200,
        headers: { [PANEL_HEADER]: "1" },
      })
    ),
  );
  return render(
    <MemoryRouter initialEntries={[at]}>
      <Routes>
        <Route element={<Layout />}>
          <Route path="*" element={<Where />} />
        </Route>
      </Routes>
    </MemoryRouter>,
  );
}

const where = () => screen.getByTestId("where").textContent;

describe("server switcher", () => {
  beforeEach(() => {
    session.user = { username: "admin", role: "admin", email: "" };
  });
  afterEach(() => {
    // Unmounted first: the layout asks again when the user changes, which must not reach the network.
    cleanup();
    vi.unstubAllGlobals();
    serverList.list = null;
    showServer(1);
    session.user = null;
  });

  it("keeps the page when another server is chosen, and the sidebar's links follow the server shown", async () => {
    show("/servers/2/saves", [summary(1, "Main"), summary(2, "Space Age"), summary(3, "Test map")]);
    const switcher = await screen.findByTestId("server-switcher");
    expect(current.server).toBe(2);
    expect(switcher.getAttribute("aria-label")).toBe("Server shown: Space Age");
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "Backups" }).getAttribute("href")).toBe(
      "/servers/2/backups",
    );
    expect(within(nav).getByRole("link", { name: "Controls" }).getAttribute("href")).toBe("/servers/2");
    // The panel's own pages are the same for every server.
    expect(within(nav).getByRole("link", { name: "Account" }).getAttribute("href")).toBe("/account");

    fireEvent.click(switcher);
    fireEvent.click(await screen.findByRole("menuitem", { name: /Test map/ }));
    await waitFor(() => expect(where()).toBe("/servers/3/saves"));
    expect(current.server).toBe(3);

    fireEvent.click(screen.getByTestId("server-switcher"));
    fireEvent.click(await screen.findByRole("menuitem", { name: /Main/ }));
    // Server 1 keeps today's addresses; its Controls is /servers/1 while "/" is the overview.
    await waitFor(() => expect(where()).toBe("/saves"));
    expect(current.server).toBe(1);
    expect(within(nav).getByRole("link", { name: "Controls" }).getAttribute("href")).toBe("/servers/1");
    expect(within(nav).getByRole("link", { name: "Saves" }).getAttribute("href")).toBe("/saves");
  });

  it("from a panel page, choosing a server opens its Controls", async () => {
    show("/account", [summary(1, "Main"), summary(2, "Space Age")]);
    fireEvent.click(await screen.findByTestId("server-switcher"));
    fireEvent.click(await screen.findByRole("menuitem", { name: /Space Age/ }));
    await waitFor(() => expect(where()).toBe("/servers/2"));
  });

  it("is hidden with one server, whose links stay today's", async () => {
    show("/saves", [summary(1, "Main")]);
    await waitFor(() => expect(serverList.list?.length).toBe(1));
    expect(screen.queryByTestId("server-switcher")).toBeNull();
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "Controls" }).getAttribute("href")).toBe("/");
  });
});
