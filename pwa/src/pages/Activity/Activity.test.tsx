import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import Activity, { deviceOf, PAGE } from "./Activity.tsx";
import { session } from "../../state/session.ts";
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
    vi.unstubAllGlobals();
    session.user = null;
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
