import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import Players from "./Players.tsx";
import { flash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import type { PlayerLists } from "../../../../shared/api.ts";
import { PANEL_MSG } from "../../../../shared/messages.ts";

describe("Players page", () => {
  let lists: PlayerLists;
  let calls: [string, unknown][];
  beforeEach(() => {
    flash.items.splice(0);
    server.status = { status: "stopped" } as typeof server.status;
    calls = [];
    lists = {
      admins: ["boss"],
      whitelist: [],
      use_whitelist: false,
      bans: [{ username: "griefer", reason: "tnt" }],
      live: false,
    };
    vi.stubGlobal(
      "WebSocket",
      class {
        static OPEN = 1;
        close() {}
      },
    );
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const body = init?.body ? JSON.parse(String(init.body)) : undefined;
        calls.push([url, body]);
        if (url === "/api/players/online") return new Response(JSON.stringify({ players: ["alice"] }));
        if (url === "/api/players/whitelist/add") {
          lists = { ...lists, whitelist: [...lists.whitelist, body.username] };
        }
        if (url === "/api/players/bans/remove") {
          lists = { ...lists, bans: [] };
        }
        if (url === "/api/players/whitelist/use") lists = { ...lists, use_whitelist: body.enabled };
        return new Response(JSON.stringify(lists));
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("lists the three lists, adds, removes and switches the whitelist", async () => {
    render(<Players />);
    expect(await screen.findByText(PANEL_MSG.playersStopped)).toBeTruthy();
    expect(screen.getByText(PANEL_MSG.playersNotRunning)).toBeTruthy();
    const admins = await screen.findByRole("table", { name: "admin list" });
    expect(within(admins).getByText("boss")).toBeTruthy();
    expect(within(screen.getByRole("table", { name: "ban list" })).getByText("tnt")).toBeTruthy();

    const add = screen.getByRole("form", { name: "Add to the whitelist" });
    fireEvent.change(within(add).getByLabelText("Player name"), { target: { value: "no spaces please" } });
    fireEvent.click(within(add).getByRole("button", { name: "Add" }));
    expect(await within(add).findByText(/is not a Factorio player name/)).toBeTruthy();
    expect(calls.some(([u]) => u === "/api/players/whitelist/add")).toBe(false);

    fireEvent.change(within(add).getByLabelText("Player name"), { target: { value: " alice " } });
    fireEvent.click(within(add).getByRole("button", { name: "Add" }));
    expect(await screen.findByRole("table", { name: "whitelist" })).toBeTruthy();
    expect(calls.find(([u]) => u === "/api/players/whitelist/add")?.[1]).toEqual({ username: "alice" });
    await waitFor(() =>
      expect(flash.items.map((f) => f.message)).toContain(PANEL_MSG.playerAdded("alice", "whitelist"))
    );

    fireEvent.click(screen.getByRole("button", { name: "Remove griefer from the ban list" }));
    expect(await screen.findByText("Nobody is on the ban list.")).toBeTruthy();

    fireEvent.click(screen.getByRole("switch", { name: "Use whitelist" }));
    await waitFor(() => expect(flash.items.map((f) => f.message)).toContain(PANEL_MSG.whitelistUse(true)));
    expect((screen.getByRole("switch", { name: "Use whitelist" }) as HTMLInputElement).checked).toBe(true);
  });

  it("reads the lists again when the server status changes (in-game edits after a stop)", async () => {
    render(<Players />);
    await screen.findByRole("table", { name: "admin list" });
    const reads = () => calls.filter(([u]) => u === "/api/players").length;
    expect(reads()).toBe(1);
    server.status = { status: "running" } as typeof server.status;
    await waitFor(() => expect(reads()).toBe(2));
    expect(await screen.findByRole("button", { name: "Kick alice" })).toBeTruthy();
    lists = { ...lists, admins: ["boss", "promoted_in_game"] };
    server.status = { status: "stopped" } as typeof server.status;
    expect(await screen.findByText("promoted_in_game")).toBeTruthy();
  });
});
