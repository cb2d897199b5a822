import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import PlayerHistory, { playTime } from "./PlayerHistory.tsx";
import { stepPath } from "../Controls/PlayersChart.tsx";
import type { ChatLine, PlayerHistoryRow } from "../../../../shared/alerts.ts";

// The machine running the suites is busy: give renders and fetches time.
configure({ asyncUtilTimeout: 10_000 });

const ROWS: PlayerHistoryRow[] = [
  {
    name: "alice",
    first_seen: "2026-01-01T10:00:00.000Z",
    last_seen: "2026-01-03T10:00:00.000Z",
    play_time_s: 7300,
    sessions: 4,
    online: false,
  },
  {
    name: "Jean Luc",
    first_seen: "2026-01-02T10:00:00.000Z",
    last_seen: "2026-01-04T10:00:00.000Z",
    play_time_s: 600,
    sessions: 1,
    online: true,
  },
  {
    name: "Zoë",
    first_seen: "2025-12-30T10:00:00.000Z",
    last_seen: "2026-01-01T11:00:00.000Z",
    play_time_s: 59,
    sessions: 9,
    online: false,
  },
];

describe("Player history page", () => {
  let chatQueries: string[];
  beforeEach(() => {
    chatQueries = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        if (url === "/api/players/history") return new Response(JSON.stringify(ROWS));
        const q = new URL(url, "http://x").searchParams.get("q") ?? "";
        chatQueries.push(q);
        const lines: ChatLine[] = [{
          at: "2026-01-04T09:00:00.000Z",
          name: "Jean Luc",
          message: "more iron",
        }];
        return new Response(JSON.stringify(lines.filter((l) => l.message.includes(q) || l.name.includes(q))));
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("sorts by any column, searches players, and searches the chat", async () => {
    render(<PlayerHistory />);
    const table = await screen.findByRole("table", { name: "Players history" }, { timeout: 20_000 });
    const names = () =>
      within(table).getAllByRole("row").slice(1).map((r) => r.querySelector("td")!.textContent!.trim());
    expect(names()).toEqual(["Jean Luc online", "alice", "Zoë"]); // last seen, newest first
    fireEvent.click(within(table).getByRole("button", { name: "Sessions" }));
    expect(names()).toEqual(["Zoë", "alice", "Jean Luc online"]);
    fireEvent.click(within(table).getByRole("button", { name: "Sessions" }));
    expect(names()).toEqual(["Jean Luc online", "alice", "Zoë"]);
    fireEvent.change(screen.getByLabelText("Search players"), { target: { value: "ZO" } });
    expect(names()).toEqual(["Zoë"]);

    expect(await screen.findByText(/more iron/, {}, { timeout: 10_000 })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Search chat"), { target: { value: "copper" } });
    expect(await screen.findByText("Nothing said matches.", {}, { timeout: 10_000 })).toBeTruthy();
    await waitFor(() => expect(chatQueries).toContain("copper"));
  }, 60_000);

  it(
    "a long history: every player is shown; a search narrows it and clearing it brings all back",
    async () => {
      const many: PlayerHistoryRow[] = Array.from({ length: 150 }, (_, i) => ({
        name: `p${String(i).padStart(3, "0")}`,
        first_seen: "2026-01-01T10:00:00.000Z",
        last_seen: new Date(Date.parse("2026-01-03T10:00:00.000Z") - i * 60_000).toISOString(),
        play_time_s: 60 * i,
        sessions: 1,
        online: false,
      }));
      vi.stubGlobal(
        "fetch",
        vi.fn(async (url: string) =>
          new Response(JSON.stringify(url === "/api/players/history" ? many : []))
        ),
      );
      render(<PlayerHistory />);
      const table = await screen.findByRole("table", { name: "Players history" }, { timeout: 20_000 });
      await within(table).findByText("p149");
      expect(within(table).getAllByRole("row")).toHaveLength(151);
      fireEvent.change(screen.getByLabelText("Search players"), { target: { value: "P14" } });
      await waitFor(() => expect(within(table).getAllByRole("row")).toHaveLength(11)); // p140-p149 and the header
      fireEvent.change(screen.getByLabelText("Search players"), { target: { value: "" } });
      await waitFor(() => expect(within(table).getAllByRole("row")).toHaveLength(151));
    },
    60_000,
  );

  it("play time and the chart's step line", () => {
    expect([playTime(40), playTime(600), playTime(7300)]).toEqual(["40 s", "10 min", "2 h 01 min"]);
    const from = Date.parse("2026-01-01T00:00:00Z");
    const to = from + 600_000;
    const at = (ms: number) => new Date(from + ms).toISOString();
    // Nobody before the first sample; 2 from minute 5; 0 from minute 7 until now.
    expect(stepPath([{ at: at(300_000), count: 2 }, { at: at(420_000), count: 0 }], from, to, 2))
      .toBe("M0,120.0H300.0V8.0H420.0V120.0H600V120.0");
    expect(stepPath([], from, to, 1)).toBe("");
  });
});
