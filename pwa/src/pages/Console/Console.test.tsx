import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import Console, { clearHistory, CONSOLE_MAX_LINES } from "./Console.tsx";
import { server } from "../../state/server.ts";
import { socket } from "../../state/socket.ts";
import { flash } from "../../state/flash.ts";
import type { ServerStatus } from "../../../../shared/api.ts";
import { MSG } from "../../../../shared/messages.ts";

const running = { status: "running", running: true } as ServerStatus;

describe("Console", () => {
  let listener: ((line: string) => void) | null;
  let unsubscribed: number;
  let sent: string[];
  beforeEach(() => {
    clearHistory();
    flash.items.splice(0);
    listener = null;
    unsubscribed = 0;
    sent = [];
    vi.spyOn(socket, "subscribe").mockImplementation((room, fn) => {
      expect(room).toBe("gamelog");
      listener = fn;
      return () => void unsubscribed++;
    });
    vi.spyOn(socket, "command").mockImplementation((text) => (sent.push(text), true));
  });
  afterEach(() => vi.restoreAllMocks());

  it("says the console is unavailable unless the server is running, and does not subscribe", () => {
    for (const status of [null, { status: "stopped" }, { status: "starting" }, { status: "stopping" }]) {
      server.status = status as ServerStatus | null;
      const { unmount } = render(<Console />);
      expect(screen.getByText(MSG.consoleUnavailable)).toBeTruthy();
      expect(screen.queryByLabelText("Command")).toBeNull();
      unmount();
    }
    expect(listener).toBeNull();
  });

  it("subscribes to the game log on open, shows its lines, unsubscribes on leave", () => {
    server.status = running;
    const { unmount } = render(<Console />);
    act(() => {
      listener!("   1.000 Hosting game at IP ADDR:({0.0.0.0:34197})");
      listener!("admin> /time");
      listener!("7 seconds");
    });
    const log = screen.getByRole("log", { name: "Game log" });
    expect(log.textContent).toContain("Hosting game at");
    expect(log.textContent).toContain("7 seconds");
    unmount();
    expect(unsubscribed).toBe(1);
  });

  it("keeps at most the last CONSOLE_MAX_LINES lines", () => {
    server.status = running;
    render(<Console />);
    act(() => {
      for (let i = 0; i < CONSOLE_MAX_LINES + 5; i++) listener!(`line ${i}`);
    });
    const log = screen.getByRole("log", { name: "Game log" });
    expect(log.children.length).toBe(CONSOLE_MAX_LINES);
    expect(log.firstElementChild?.textContent).toBe("line 5");
  });

  it("Enter sends and clears; up and down bring back earlier commands", () => {
    server.status = running;
    render(<Console />);
    const input = screen.getByLabelText("Command") as HTMLInputElement;
    for (const c of ["/players", "/time"]) {
      fireEvent.change(input, { target: { value: c } });
      fireEvent.keyDown(input, { key: "Enter" });
      expect(input.value).toBe("");
    }
    fireEvent.keyDown(input, { key: "Enter" }); // nothing typed: nothing sent
    expect(sent).toEqual(["/players", "/time"]);
    fireEvent.keyDown(input, { key: "ArrowUp" });
    expect(input.value).toBe("/time");
    fireEvent.keyDown(input, { key: "ArrowUp" });
    expect(input.value).toBe("/players");
    fireEvent.keyDown(input, { key: "ArrowUp" });
    expect(input.value).toBe("/players");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(input.value).toBe("/time");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(input.value).toBe("");
  });

  it("without a connection the command is kept and the user told", () => {
    server.status = running;
    vi.mocked(socket.command).mockImplementation(() => false);
    render(<Console />);
    const input = screen.getByLabelText("Command") as HTMLInputElement;
    fireEvent.change(input, { target: { value: "/players" } });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(input.value).toBe("/players");
    expect(flash.items[0]?.color).toBe("error");
  });
});
