import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Tokens } from "./Tokens.tsx";
import { session } from "../../state/session.ts";
import type { ApiToken } from "../../../../shared/access.ts";

const TOKEN: ApiToken = {
  id: 3,
  name: "nightly",
  role: "operator",
  created_at: "2026-11-01T00:00:00.000Z",
  expires_at: "2027-11-01T00:00:00.000Z",
  last_used_at: null,
  last_used_address: "",
  state: "active",
  servers: [2],
};

function panel(servers: { id: number; name: string }[] | 404) {
  const made: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === "/api/user/tokens" && init?.method === "POST") {
        made.push(JSON.parse(String(init.body)));
        return new Response(JSON.stringify({ ...TOKEN, token: "fpt_secret" }));
      }
      if (url.startsWith("/api/user/tokens")) return new Response(JSON.stringify([TOKEN]));
      if (url === "/api/servers" && servers !== 404) return new Response(JSON.stringify(servers));
      return new Response(JSON.stringify("Not found"), { status: 404 });
    }),
  );
  return made;
}

describe("API tokens: limit to servers", () => {
  beforeEach(() => {
    session.user = { username: "olga", role: "operator", email: "" };
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    session.user = null;
  });

  it("every server by default: the token is made without a list", async () => {
    const made = panel(404);
    render(<Tokens />);
    const form = await screen.findByRole("form", { name: "Create Token" });
    expect(within(form).getByText("All servers")).toBeTruthy();
    // A listed token limited to a server the panel does not name still says which.
    expect(await screen.findByText("only Server 2", undefined, { timeout: 20_000 })).toBeTruthy();
    fireEvent.change(within(form).getByLabelText("Token name"), { target: { value: "backup script" } });
    fireEvent.click(within(form).getByRole("button", { name: "Create Token" }));
    await waitFor(() => expect(made).toEqual([{ name: "backup script", role: "viewer", expires_days: 90 }]));
  }, 30_000);

  it("limited to the servers chosen, named in the list", async () => {
    const made = panel([{ id: 1, name: "Main" }, { id: 2, name: "Event" }]);
    render(<Tokens />);
    expect(await screen.findByText("only Event", undefined, { timeout: 20_000 })).toBeTruthy();
    const form = screen.getByRole("form", { name: "Create Token" });
    fireEvent.mouseDown(within(form).getByText("All servers"));
    fireEvent.click(await screen.findByRole("option", { name: "Event" }));
    fireEvent.keyDown(await screen.findByRole("listbox"), { key: "Escape" });
    await waitFor(() => expect(within(form).getByText("Event")).toBeTruthy());
    fireEvent.change(within(form).getByLabelText("Token name"), { target: { value: "event bot" } });
    fireEvent.click(within(form).getByRole("button", { name: "Create Token" }));
    await waitFor(() =>
      expect(made).toEqual([{ name: "event bot", role: "viewer", expires_days: 90, servers: [2] }])
    );
  }, 30_000);
});
