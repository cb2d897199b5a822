import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ModSettings } from "./ModSettings.tsx";
import { flash } from "../../state/flash.ts";
import type { ModSettingDefinitions, ModSettingsState } from "../../../../shared/modsettings.ts";

const STATE: ModSettingsState = {
  version: "2.0.72.0",
  settings: {
    "startup": { "tm-enabled": { value: true }, "old-mod-speed": { value: 2.5 } },
    "runtime-global": { "tm-count": { value: 5 } },
    "runtime-per-user": { "tm-colour": { value: { r: 1, g: 0.5, b: 0, a: 1 } } },
  },
  previous: null,
};
const DEFS: ModSettingDefinitions = {
  problems: [],
  definitions: [
    {
      mod: "test-mod",
      name: "tm-enabled",
      setting_type: "startup",
      type: "bool",
      default: true,
      title: "Enable the thing",
    },
    {
      mod: "test-mod",
      name: "tm-mode",
      setting_type: "startup",
      type: "string",
      default: "fast",
      allowed_values: ["fast", "slow"],
    },
    {
      mod: "test-mod",
      name: "tm-count",
      setting_type: "runtime-global",
      type: "int",
      default: 3,
      minimum: 1,
      maximum: 100,
    },
    {
      mod: "test-mod",
      name: "tm-colour",
      setting_type: "runtime-per-user",
      type: "color",
      default: { r: 1, g: 0.5, b: 0, a: 1 },
    },
  ],
};

describe("Mod settings tab", () => {
  let posted: unknown[];
  beforeEach(() => {
    flash.items.splice(0);
    posted = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const path = String(url);
        if (path === "/api/mods/settings") return Response.json(STATE);
        if (path === "/api/mods/settings/definitions") return Response.json(DEFS);
        if (path === "/api/mods/settings/update") {
          const body = JSON.parse(String(init?.body));
          posted.push(body);
          return Response.json({
            ...STATE,
            settings: {
              ...STATE.settings,
              "runtime-global": { "tm-count": body.settings["runtime-global"]["tm-count"] },
            },
          });
        }
        return Response.json("not here", { status: 404 });
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("lists startup settings by mod with typed inputs, the file's own settings after the mods'", async () => {
    render(<ModSettings readOnly={false} />);
    expect(await screen.findByText("Enable the thing")).toBeTruthy();
    expect((screen.getByRole("switch", { name: "Value of tm-enabled" }) as HTMLInputElement).checked).toBe(
      true,
    );
    expect(screen.getByText("In the file only")).toBeTruthy();
    expect((screen.getByLabelText("Value of old-mod-speed") as HTMLInputElement).value).toBe("2.5");
    expect(screen.getByText(/tm-mode · |not in the file yet/)).toBeTruthy();
    expect(screen.getByRole("tab", { name: "Startup (3)" })).toBeTruthy();
  });

  it("checks a number against its definition, saves only what changed, and resets to the default", async () => {
    render(<ModSettings readOnly={false} />);
    fireEvent.click(await screen.findByRole("tab", { name: "Map (1)" }));
    const count = screen.getByLabelText("Value of tm-count") as HTMLInputElement;
    fireEvent.change(count, { target: { value: "101" } });
    expect(await screen.findByText("must be at most 100")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Save mod settings (1)" }));
    expect(posted).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Reset tm-count to its default" }));
    expect(count.value).toBe("3");
    fireEvent.click(screen.getByRole("button", { name: "Save mod settings (1)" }));
    await waitFor(() =>
      expect(posted).toEqual([{ settings: { "runtime-global": { "tm-count": { value: 3 } } } }])
    );
    await waitFor(() => expect(screen.getByRole("button", { name: "Save mod settings" })).toBeTruthy());
  });

  it("is read-only while the server runs", async () => {
    render(<ModSettings readOnly />);
    expect(await screen.findByText("The server is running: mod settings can be changed once it is stopped."))
      .toBeTruthy();
    expect((screen.getByRole("switch", { name: "Value of tm-enabled" }) as HTMLInputElement).disabled).toBe(
      true,
    );
  });
});
