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
const update = (modName: string): ModUpdate => ({ modName, downloadUrl: `/download/${modName}/1`, fileName: `${modName}_1.1.0.zip`, current: "1.0.0", version: "1.1.0" });

describe("ModsTable pinning", () => {
  it("a pinned mod shows no update button even if one is offered, and the pin button flips it", () => {
    const onPin = vi.fn();
    render(<ModsTable label="Installed mods" mods={[mod("a", true), mod("b", false)]} updates={[update("a"), update("b")]} onPin={onPin} />);
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
