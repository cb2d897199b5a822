import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import GameSettings from "./GameSettings.tsx";
import { flash } from "../../state/flash.ts";

function answer(status: number, body: unknown) {
  vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(body), { status })));
}

describe("Game Settings page", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows each group as a heading with a key/value table, '--' when empty, client-only groups collapsed", async () => {
    answer(200, {
      path: { "read-data": "__PATH__executable__/../../data" },
      general: {},
      graphics: { "graphics-quality": "high" },
    });
    render(<GameSettings />);
    const path = await screen.findByRole("table", { name: "path" });
    expect(path.textContent).toContain("__PATH__executable__/../../data");
    expect(screen.getByRole("heading", { name: "general" })).toBeTruthy();
    expect(screen.getByText("--")).toBeTruthy();
    expect(screen.getByRole("button", { name: "path" }).getAttribute("aria-expanded")).toBe("true");
    expect(screen.getByRole("button", { name: /graphics/ }).getAttribute("aria-expanded")).toBe("false");
  });

  it("explains a missing config.ini on the page instead of flashing an error", async () => {
    flash.items.splice(0);
    answer(
      404,
      "There is no config.ini at /f/config/config.ini yet. The game writes it the first time it starts.",
    );
    render(<GameSettings />);
    expect(await screen.findByText(/The game writes it the first time it starts\./)).toBeTruthy();
    expect(flash.items).toHaveLength(0);
  });
});
