import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { ModsTable } from "./ModsTable.tsx";
import type { Mod, ModUpdate } from "../../../../shared/api.ts";

const mod = (name: string, pinned: boolean): Mod => ({
  name,
  title: name,
  author: "a",
  version: "1.0.0",
  file_name: `${name}_1.0.0.zip`,
  factorio_version: "2.0.0.0",
  dependencies: [],
  compatibility: true,
  enabled: true,
  built_in: false,
  error: null,
  other_versions: [],
  pinned,
});
const update = (modName: string): ModUpdate => ({
  modName,
  downloadUrl: `/download/${modName}/1`,
  fileName: `${modName}_1.1.0.zip`,
  current: "1.0.0",
  version: "1.1.0",
});

describe("ModsTable pinning", () => {
  it("a pinned mod shows no update button even if one is offered, and the pin button flips it", () => {
    const onPin = vi.fn();
    render(
      <ModsTable
        label="Installed mods"
        mods={[mod("a", true), mod("b", false)]}
        updates={[update("a"), update("b")]}
        onPin={onPin}
      />,
    );
    expect(screen.queryByRole("button", { name: "Update a to 1.1.0" })).toBeNull();
    expect(screen.getByRole("button", { name: "Update b to 1.1.0" })).toBeTruthy();
    expect(screen.getByText("pinned")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Unpin a" }));
    fireEvent.click(screen.getByRole("button", { name: "Pin b at 1.0.0" }));
    expect(onPin.mock.calls.map(([m, p]) => [m.name, p])).toEqual([["a", false], ["b", true]]);
  });

  it("read-only tables and packs (no onPin) have no pin buttons", () => {
    render(<ModsTable label="Installed mods" mods={[mod("a", false)]} readOnly onPin={() => {}} />);
    expect(screen.queryByRole("button", { name: /Pin a/ })).toBeNull();
  });
});

describe("ModsTable while a change is under way", () => {
  it("turns every switch and button off together (a disabled fieldset), and back on after", () => {
    const mods = [mod("a", false), mod("b", false)];
    const { rerender } = render(
      <ModsTable label="Installed mods" mods={mods} updates={[update("b")]} onPin={() => {}} disabled />,
    );
    const controls = () => [...screen.getAllByRole("switch"), ...screen.getAllByRole("button")];
    expect(controls().length).toBeGreaterThanOrEqual(6);
    // A browser disables every control inside a disabled fieldset (jsdom does not apply that to :disabled).
    const off = (c: HTMLElement) =>
      (c as HTMLInputElement).disabled || c.closest("fieldset")?.disabled === true;
    expect(controls().every(off)).toBe(true);
    rerender(<ModsTable label="Installed mods" mods={mods} updates={[update("b")]} onPin={() => {}} />);
    expect(controls().some(off)).toBe(false);
  });

  it("a reload with new values shows them (rows are kept only while their data is the same)", () => {
    const { rerender } = render(
      <ModsTable label="Installed mods" mods={[mod("a", false)]} onToggle={() => {}} />,
    );
    expect((screen.getByRole("switch", { name: "Enable a" }) as HTMLInputElement).checked).toBe(true);
    rerender(
      <ModsTable
        label="Installed mods"
        mods={[{ ...mod("a", false), enabled: false }]}
        onToggle={() => {}}
      />,
    );
    expect((screen.getByRole("switch", { name: "Enable a" }) as HTMLInputElement).checked).toBe(false);
  });

  it("each row calls the handlers the table was given last", () => {
    const first = vi.fn();
    const second = vi.fn();
    const mods = [mod("a", false)];
    const { rerender } = render(<ModsTable label="Installed mods" mods={mods} onToggle={first} />);
    rerender(<ModsTable label="Installed mods" mods={mods} onToggle={second} />);
    fireEvent.click(screen.getByRole("switch", { name: "Enable a" }));
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });
});
