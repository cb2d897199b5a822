import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import Users from "./Users.tsx";
import { session } from "../../state/session.ts";
import type { User } from "../../../../shared/api.ts";

const USERS: User[] = [
  { username: "admin", role: "admin", email: "" },
  { username: "olga", role: "operator", email: "olga@example.org", servers: { "1": "operator" } },
  { username: "vic", role: "viewer", email: "vic@example.org", servers: { "2": "viewer" } },
];

/** The panel's answers: the users, and GET /api/servers as `servers` says (404: a panel of one server). */
function panel(servers: { id: number; name: string }[] | 404) {
  const posts: [string, unknown][] = [];
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    if (init?.method === "POST") {
      posts.push([url, JSON.parse(String(init.body))]);
      return new Response(JSON.stringify("The servers of olga are changed."));
    }
    if (url === "/api/user/list") return new Response(JSON.stringify(USERS));
    if (url === "/api/servers") {
      return servers === 404
        ? new Response(JSON.stringify("Not found"), { status: 404 })
        : new Response(JSON.stringify(servers));
    }
    return new Response(JSON.stringify("Not found"), { status: 404 });
  });
  vi.stubGlobal("fetch", fetch);
  return { fetch, posts };
}

const show = () =>
  render(
    <MemoryRouter>
      <Users />
    </MemoryRouter>,
  );

describe("Users: roles per server", () => {
  beforeEach(() => {
    session.user = { username: "admin", role: "admin", email: "" };
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    session.user = null;
  });

  it(
    "a panel without a servers list (404): each viewer and operator has Server 1; setting No access sends null",
    async () => {
      const { posts } = panel(404);
      show();
      const olga = await screen.findByRole("group", { name: "Servers of olga" }, { timeout: 20_000 });
      const one = within(olga).getByRole("combobox", { name: "Server 1" });
      expect(one.textContent).toBe("Operator");
      // Vic has no role on server 1; the admin has every server and no choices.
      expect(within(screen.getByRole("group", { name: "Servers of vic" })).getByRole("combobox").textContent)
        .toBe("No access");
      expect(screen.queryByRole("group", { name: "Servers of admin" })).toBeNull();

      fireEvent.mouseDown(one);
      fireEvent.click(await screen.findByRole("option", { name: "No access" }));
      await waitFor(() =>
        expect(posts).toEqual([["/api/user/servers", { username: "olga", servers: { "1": null } }]])
      );
    },
    30_000,
  );

  it("one choice per server the panel lists, by name", async () => {
    const { posts } = panel([{ id: 1, name: "Main" }, { id: 2, name: "Space Age" }]);
    show();
    const vic = await screen.findByRole("group", { name: "Servers of vic" }, { timeout: 20_000 });
    const main = within(vic).getByRole("combobox", { name: "Main" });
    const space = within(vic).getByRole("combobox", { name: "Space Age" });
    expect([main.textContent, space.textContent]).toEqual(["No access", "Viewer"]);
    fireEvent.mouseDown(space);
    fireEvent.click(await screen.findByRole("option", { name: "Operator" }));
    await waitFor(() =>
      expect(posts).toEqual([["/api/user/servers", { username: "vic", servers: { "2": "operator" } }]])
    );
  }, 30_000);
});
