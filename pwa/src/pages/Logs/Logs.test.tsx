import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import Logs from "./Logs.tsx";
import { socket } from "../../state/socket.ts";
import { levelOf } from "./levels.ts";

describe("Logs", () => {
  let listener: ((line: string) => void) | null;
  let reconnected: (() => void) | undefined;
  let left: number;
  beforeEach(() => {
    listener = null;
    left = 0;
    vi.spyOn(socket, "subscribe").mockImplementation((room, fn, onReplay) => {
      expect(room).toBe("logs");
      listener = fn;
      reconnected = onReplay;
      return () => void left++;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("shows the tail, then live lines; a line already in the tail is not shown twice", async () => {
    let answer = ["   0.000 first", "   1.000 second"];
    let release: () => void = () => {};
    const spy = vi.fn(async (_url: string) => {
      await new Promise<void>((r) => (release = r));
      return new Response(JSON.stringify(answer));
    });
    vi.stubGlobal("fetch", spy);
    const { unmount } = render(<Logs />);
    // Joined the room before the tail is read; a line comes meanwhile that the tail holds too.
    expect(listener).not.toBeNull();
    act(() => listener!("   1.000 second"));
    await waitFor(() => expect(spy).toHaveBeenCalled());
    expect(spy.mock.calls[0][0]).toBe("/api/log/tail");
    await act(async () => release());
    const log = await screen.findByRole("log", { name: "Factorio log" });
    await waitFor(() => expect(log.textContent).toContain("1.000 second"));
    expect(log.textContent!.match(/second/g)).toHaveLength(1);
    await act(async () => listener!("   2.000 Error third"));
    expect(log.textContent).toContain("2.000 Error third");
    // After a reconnect the tail is read again, replacing what was shown.
    answer = ["   5.000 after"];
    act(() => reconnected!());
    await act(async () => release());
    await waitFor(() => expect(log.textContent).toBe("   5.000 after"));
    unmount();
    expect(left).toBe(1);
  });

  it("searches and filters by level, and counts", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () =>
        Response.json([
          "   0.100 Info alpha",
          "   0.200 Warning beta",
          "   0.300 Error gamma",
          "  stack line of gamma",
          "Factorio Panel: a note",
        ])
      ),
    );
    render(<Logs />);
    const log = await screen.findByRole("log", { name: "Factorio log" });
    await waitFor(() => expect(log.textContent).toContain("gamma"));
    fireEvent.click(screen.getByRole("checkbox", { name: "Info (1)" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Warning (1)" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Panel (1)" }));
    await waitFor(() => expect(log.textContent).toBe("   0.300 Error gamma  stack line of gamma"));
    expect(screen.getByTestId("logs-count").textContent).toBe("2 of 5 lines");
    fireEvent.click(screen.getByRole("checkbox", { name: "Info (1)" }));
    fireEvent.change(screen.getByRole("searchbox", { name: "Search" }), { target: { value: "ALPHA" } });
    await waitFor(() => expect(log.textContent).toBe("   0.100 Info alpha"));
    expect(log.querySelector("mark")?.textContent).toBe("alpha");
  });

  it("says so when the log is empty", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("[]")));
    render(<Logs />);
    expect(await screen.findByText("The log is empty: the game has not run yet.")).toBeTruthy();
  });
});

describe("levelOf", () => {
  it("reads the game's levels, counts its other lines as Info, and continues the line before", () => {
    const lines = [
      ["   0.004 Operating system: Linux", "Info"],
      ["29973.149 Info ServerMultiplayerManager.cpp:1064: Disconnect notification for peer (2)", "Info"],
      ["   1.500 Warning RemoteCommandProcessor.cpp:104: RCON password is empty", "Warning"],
      ["  12.000 Error Util.cpp:83: Received SIGSEGV", "Error"],
      ["Stack trace:", "Error"],
      ["2022-01-26 18:06:44 [LEAVE] kkndvulcanic left the game", "Info"],
      ["admin> /players", "Panel"],
      ["Players (1):", "Panel"],
      ["Factorio Panel: The automatic restart failed", "Panel"],
    ] as const;
    let level = "Info" as ReturnType<typeof levelOf>;
    for (const [line, expected] of lines) {
      level = levelOf(line, level);
      expect(level, line).toBe(expected);
    }
  });
});
