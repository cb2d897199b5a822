import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import Activity, { deviceOf, PAGE } from "./Activity.tsx";
import { session } from "../../state/session.ts";
import { applyServers, forgetServers } from "../../state/servers.ts";
import type { ServerSummary } from "../../../../shared/contract/servers.ts";
import type { ActivityEntry } from "../../../../shared/access.ts";

const ENTRY: ActivityEntry = {
  id: 7,
  at: "2026-11-22T10:00:00.000Z",
  username: "olga",
  via: "token nightly",
  address: "10.0.0.5",
  user_agent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36",
  action: "GET /api/saves/rm/:name",
  detail: "/api/saves/rm/old.zip",
  status: 200,
  server: null,
};

describe("Activity", () => {
  beforeEach(() => {
    session.user = { username: "admin", role: "admin", email: "" };
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    session.user = null;
    forgetServers();
  });

  it("lists who did what in words, and applies the filters to the query and the CSV link", async () => {
    const spy = vi.fn(async (_url: string) => new Response(JSON.stringify([ENTRY])));
    vi.stubGlobal("fetch", spy);
    render(<Activity />);
    expect(await screen.findByText("Deleted save 'old.zip'")).toBeTruthy();
    // The raw request stays in small print, for whoever scripts against the API.
    expect(screen.getByText("GET /api/saves/rm/:name")).toBeTruthy();
    expect(screen.getByText("token nightly")).toBeTruthy();
    expect(spy.mock.calls[0][0]).toBe(`/api/activity?limit=${PAGE + 1}`);

    fireEvent.change(screen.getByLabelText("User"), { target: { value: "olga" } });
    fireEvent.change(screen.getByLabelText("Action"), { target: { value: "saves" } });
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-11-01" } });
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    await waitFor(() =>
      expect(spy.mock.calls.at(-1)![0]).toBe(
        `/api/activity?user=olga&action=saves&from=2026-11-01&limit=${PAGE + 1}`,
      )
    );
    const csv = screen.getByRole("link", { name: "Export CSV" });
    expect(csv.getAttribute("href")).toBe(
      "/api/activity?user=olga&action=saves&from=2026-11-01&limit=10000&format=csv",
    );
    // A table render and a re-render: generous on a loaded machine.
  }, 30_000);

  it(
    "pages through older records, 50 at a time, and back; a new filter starts again from the newest",
    async () => {
      // 120 records, newest first; the page asks for one more than it shows, to know whether older ones exist.
      const all = Array.from(
        { length: 120 },
        (_, i) => ({ ...ENTRY, id: 120 - i, detail: `/api/saves/rm/save-${120 - i}.zip` }),
      );
      const spy = vi.fn(async (url: string) => {
        const q = new URL(url, "http://x").searchParams;
        const before = Number(q.get("before") ?? Infinity);
        return new Response(
          JSON.stringify(all.filter((e) => e.id < before).slice(0, Number(q.get("limit")))),
        );
      });
      vi.stubGlobal("fetch", spy);
      render(<Activity />);
      expect(await screen.findByText("Deleted save 'save-120.zip'")).toBeTruthy();
      expect(await screen.findByText("Deleted save 'save-71.zip'", undefined, { timeout: 10_000 }))
        .toBeTruthy();
      expect(screen.queryByText("Deleted save 'save-70.zip'")).toBeNull();
      expect(screen.getByText("Page 1 · records 1-50")).toBeTruthy();
      expect((screen.getByRole("button", { name: "Newer" }) as HTMLButtonElement).disabled).toBe(true);
      fireEvent.click(screen.getByRole("button", { name: "Older" }));
      expect(await screen.findByText("Deleted save 'save-70.zip'")).toBeTruthy();
      expect(spy.mock.calls.at(-1)![0]).toBe(`/api/activity?limit=${PAGE + 1}&before=71`);
      fireEvent.click(screen.getByRole("button", { name: "Older" }));
      expect(await screen.findByText("Page 3 · records 101-120")).toBeTruthy();
      expect((screen.getByRole("button", { name: "Older" }) as HTMLButtonElement).disabled).toBe(true);
      fireEvent.click(screen.getByRole("button", { name: "Newer" }));
      expect(await screen.findByText("Page 2 · records 51-100")).toBeTruthy();
      fireEvent.click(screen.getByRole("button", { name: "Apply" }));
      expect(await screen.findByText("Page 1 · records 1-50")).toBeTruthy();
    },
    30_000,
  );

  it(
    "with several servers: names each record's server and filters by one; with one server neither",
    async () => {
      const named = (id: number, name: string) => ({ id, name }) as ServerSummary;
      applyServers([named(1, "Main"), named(2, "Moon base")]);
      const records = [
        {
          ...ENTRY,
          id: 9,
          server: 2,
          action: "GET /api/saves/create/:name",
          detail: "/api/servers/2/saves/create/moon2.zip",
        },
        { ...ENTRY, id: 8, server: null, action: "sign-in", detail: "" },
        { ...ENTRY, id: 7, server: 5 },
      ];
      const spy = vi.fn(async (url: string) => {
        const server = new URL(url, "http://x").searchParams.get("server");
        return new Response(
          JSON.stringify(records.filter((r) => server === null || String(r.server) === server)),
        );
      });
      vi.stubGlobal("fetch", spy);
      render(<Activity />);
      const table = await screen.findByRole("table", { name: "Activity" });
      await waitFor(() => expect(within(table).getAllByRole("row")).toHaveLength(4));
      const rows = within(table).getAllByRole("row");
      expect(within(rows[0]).getByText("Server")).toBeTruthy();
      // The server's name; "—" for a panel-wide record; a server gone since by its id.
      expect(rows[1].querySelectorAll("td")[1].textContent).toBe("Moon base");
      expect(rows[2].querySelectorAll("td")[1].textContent).toBe("—");
      expect(rows[3].querySelectorAll("td")[1].textContent).toBe("Server 5");

      fireEvent.mouseDown(screen.getByRole("combobox", { name: "Server" }));
      fireEvent.click(await screen.findByRole("option", { name: "Moon base" }));
      fireEvent.click(screen.getByRole("button", { name: "Apply" }));
      await waitFor(() => expect(spy.mock.calls.at(-1)![0]).toBe(`/api/activity?server=2&limit=${PAGE + 1}`));
      await waitFor(() =>
        expect(within(screen.getByRole("table", { name: "Activity" })).getAllByRole("row")).toHaveLength(2)
      );
      expect(screen.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toBe(
        "/api/activity?server=2&limit=10000&format=csv",
      );

      // One server: no column, no filter.
      cleanup();
      applyServers([named(1, "Main")]);
      render(<Activity />);
      const single = await screen.findByRole("table", { name: "Activity" });
      await waitFor(() => expect(within(single).getAllByRole("row").length).toBeGreaterThan(1));
      expect(within(single).queryByText("Server")).toBeNull();
      expect(screen.queryByRole("combobox", { name: "Server" })).toBeNull();
    },
    30_000,
  );

  it("on a phone, the server's name is a line of each record", async () => {
    applyServers([{ id: 1, name: "Main" }, { id: 2, name: "Moon base" }] as ServerSummary[]);
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify([{ ...ENTRY, server: 2 }]))));
    // A phone's width (without matchMedia, as in jsdom, the page shows the wide table).
    vi.stubGlobal("matchMedia", (query: string) => ({
      matches: false,
      media: query,
      addEventListener() {},
      removeEventListener() {},
      addListener() {},
      removeListener() {},
    }));
    render(<Activity />);
    const list = await screen.findByRole("list", { name: "Activity" });
    expect(within(list).getByText("Server: Moon base")).toBeTruthy();
  });

  it("tells a non-admin it is for admins, without asking the server", () => {
    session.user = { username: "vic", role: "viewer", email: "" };
    const spy = vi.fn();
    vi.stubGlobal("fetch", spy);
    render(<Activity />);
    expect(screen.getByText("Only admins can read the activity log.")).toBeTruthy();
    expect(spy).not.toHaveBeenCalled();
  });

  it("names browsers and systems from the user agent", () => {
    expect(deviceOf(ENTRY.user_agent)).toBe("Chrome on Linux");
    expect(
      deviceOf("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile Safari/604.1"),
    ).toBe("Safari on iOS");
    expect(deviceOf("curl/8.5.0")).toBe("curl");
    expect(deviceOf("")).toBe("unknown device");
  });
});
