import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import Activity, { deviceOf } from "./Activity.tsx";
import { session } from "../../state/session.ts";
import type { ActivityEntry } from "../../../../shared/access.ts";
import { FIRST_ROWS } from "../../components/useProgressive.ts";

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
};

describe("Activity", () => {
  beforeEach(() => {
    session.user = { username: "admin", role: "admin", email: "" };
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    session.user = null;
  });

  it("lists who did what, and applies the filters to the query and the CSV link", async () => {
    const spy = vi.fn(async (_url: string) => new Response(JSON.stringify([ENTRY])));
    vi.stubGlobal("fetch", spy);
    render(<Activity />);
    expect(await screen.findByText("GET /api/saves/rm/:name")).toBeTruthy();
    expect(screen.getByText("/api/saves/rm/old.zip")).toBeTruthy();
    expect(screen.getByText("token nightly")).toBeTruthy();
    expect(spy.mock.calls[0][0]).toBe("/api/activity?limit=200");

    fireEvent.change(screen.getByLabelText("User"), { target: { value: "olga" } });
    fireEvent.change(screen.getByLabelText("Action"), { target: { value: "saves" } });
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-11-01" } });
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    await waitFor(() => expect(spy.mock.calls.at(-1)![0]).toBe("/api/activity?user=olga&action=saves&from=2026-11-01&limit=200"));
    const csv = screen.getByRole("link", { name: "Export CSV" });
    expect(csv.getAttribute("href")).toBe("/api/activity?user=olga&action=saves&from=2026-11-01&limit=200&format=csv");
    // A table render and a re-render: generous on a loaded machine.
  }, 30_000);

  it("shows a long list's first rows at once and the rest after, and a new list from its start again", async () => {
    const many = (n: number, action: string) => Array.from({ length: n }, (_, i) => ({ ...ENTRY, id: i + 1, action: `${action} ${i + 1}` }));
    let next = many(150, "first");
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(next))));
    render(<Activity />);
    expect(await screen.findByText("first 1")).toBeTruthy();
    expect(screen.getByText(`first ${FIRST_ROWS}`)).toBeTruthy();
    expect(screen.queryByText("first 150"), "not all rows in the first render").toBeNull();
    expect(await screen.findByText("first 150", undefined, { timeout: 10_000 })).toBeTruthy();
    // Typing in the filter keeps the list; a new list shows its own rows, the first ones first.
    fireEvent.change(screen.getByLabelText("User"), { target: { value: "olga" } });
    expect(screen.getByText("first 150")).toBeTruthy();
    next = many(120, "second");
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(await screen.findByText("second 1")).toBeTruthy();
    expect(screen.queryByText("first 1")).toBeNull();
    expect(screen.queryByText("second 120"), "the new list starts from its first rows").toBeNull();
    expect(await screen.findByText("second 120", undefined, { timeout: 10_000 })).toBeTruthy();
  }, 30_000);

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
    expect(deviceOf("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile Safari/604.1")).toBe("Safari on iOS");
    expect(deviceOf("curl/8.5.0")).toBe("curl");
    expect(deviceOf("")).toBe("unknown device");
  });
});
