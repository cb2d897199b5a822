import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ScenarioToSave } from "./ScenarioToSave.tsx";
import { flash } from "../../state/flash.ts";

configure({ asyncUtilTimeout: 10_000 });

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

let fetchSpy: ReturnType<typeof vi.fn>;

beforeEach(() => {
  flash.items.splice(0);
  fetchSpy = vi.fn();
  vi.stubGlobal("fetch", fetchSpy);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const sent = (i: number) => JSON.parse(fetchSpy.mock.calls[i][1].body as string);

describe("ScenarioToSave", () => {
  it("suggests the scenario's name, shows progress while the game works, then reports the new save", async () => {
    let answer!: (r: Response) => void;
    fetchSpy.mockImplementation(() => new Promise<Response>((r) => (answer = r)));
    const onSaved = vi.fn();
    const onClose = vi.fn();
    render(<ScenarioToSave scenario="arena-mod/arena" onClose={onClose} onSaved={onSaved} />);
    expect(screen.getByLabelText("Save name")).toHaveProperty("value", "arena");
    fireEvent.click(screen.getByRole("button", { name: "Create save" }));
    expect(await screen.findByText("The game is making the map…")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Create save" })).toHaveProperty("disabled", true);
    expect(fetchSpy.mock.calls[0][0]).toBe("/api/world/scenarios/save");
    expect(sent(0)).toEqual({ name: "arena-mod/arena", save: "arena", overwrite: false });
    answer(json("Save arena.zip created from the scenario arena-mod/arena."));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith("arena"));
    expect(onClose).toHaveBeenCalled();
    expect(flash.items.map((f) => f.message)).toContain(
      "Save arena.zip created from the scenario arena-mod/arena.",
    );
  });

  it("a taken name: the panel's message in the dialog, and Replace it sends overwrite", async () => {
    fetchSpy.mockResolvedValueOnce(
      json("A save named world.zip already exists. Choose another name, or ask to replace it.", 409),
    );
    const onSaved = vi.fn();
    render(<ScenarioToSave scenario="base/freeplay" onClose={() => {}} onSaved={onSaved} />);
    fireEvent.change(screen.getByLabelText("Save name"), { target: { value: "world" } });
    fireEvent.click(screen.getByRole("button", { name: "Create save" }));
    expect(await screen.findByText(/A save named world.zip already exists/)).toBeTruthy();
    expect(flash.items).toHaveLength(0);
    fetchSpy.mockResolvedValueOnce(json("Save world.zip created from the scenario base/freeplay."));
    fireEvent.click(screen.getByRole("button", { name: "Replace it" }));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith("world"));
    expect(sent(1)).toEqual({ name: "base/freeplay", save: "world", overwrite: true });
  });

  it("the game's failure stays in the dialog; changing the name offers Create save again", async () => {
    fetchSpy.mockResolvedValueOnce(
      json(
        "The game could not make a save from the scenario base/freeplay: Failed to load mods: broken",
        500,
      ),
    );
    render(<ScenarioToSave scenario="base/freeplay" onClose={() => {}} onSaved={() => {}} />);
    fireEvent.click(screen.getByRole("button", { name: "Create save" }));
    expect(await screen.findByText(/Failed to load mods: broken/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Replace it" })).toBeNull();
  });
});
