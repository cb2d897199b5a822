import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import Logs from "./Logs.tsx";

describe("Logs", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("lists the lines of the log, and reloads them on Refresh", async () => {
    let answer = ["   0.000 first", "   1.000 second"];
    const spy = vi.fn(async (_url: string) => new Response(JSON.stringify(answer)));
    vi.stubGlobal("fetch", spy);
    render(<Logs />);
    const log = await screen.findByRole("log", { name: "Factorio log" });
    await waitFor(() => expect(log.textContent).toContain("1.000 second"));
    expect(spy.mock.calls[0][0]).toBe("/api/log/tail");
    answer = ["   2.000 third"];
    fireEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(log.textContent).toContain("third"));
  });

  it("says so when the log is empty", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("[]")));
    render(<Logs />);
    expect(await screen.findByText("The log is empty: the game has not run yet.")).toBeTruthy();
  });
});
