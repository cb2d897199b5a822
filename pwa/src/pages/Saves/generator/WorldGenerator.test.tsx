import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { WorldGenerator } from "./WorldGenerator.tsx";
import { flash } from "../../../state/flash.ts";
import type { GeneratorInfo } from "../../../../../shared/world.ts";

const INFO: GeneratorInfo = {
  version: "2.0.72",
  source: "game",
  planets: [{ name: "nauvis", controls: ["iron-ore", "water"] }, {
    name: "vulcanus",
    controls: ["tungsten_ore"],
  }],
  presets: [
    { name: "default", order: "a", default: true, basic_settings: {}, advanced_settings: {} },
    {
      name: "rich-resources",
      order: "b",
      default: false,
      basic_settings: { autoplace_controls: { "iron-ore": { richness: 2 } } },
      advanced_settings: {},
    },
  ],
  map_gen_settings: {
    width: 0,
    height: 0,
    starting_area: 1,
    peaceful_mode: false,
    autoplace_controls: {
      "iron-ore": { frequency: 1, size: 1, richness: 1 },
      water: { frequency: 1, size: 1 },
    },
  },
  map_settings: { pollution: { enabled: true }, difficulty_settings: { technology_price_multiplier: 1 } },
};

describe("World generator", () => {
  // deno-lint-ignore no-explicit-any
  let posts: { path: string; body: any }[];
  beforeEach(() => {
    flash.items.splice(0);
    posts = [];
    vi.stubGlobal(
      "URL",
      Object.assign(URL, { createObjectURL: () => "blob:preview", revokeObjectURL: () => {} }),
    );
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const path = String(url);
        if (path === "/api/world/generator") return Response.json(INFO);
        const body = init?.body ? JSON.parse(String(init.body)) : null;
        posts.push({ path, body });
        if (path === "/api/world/preview") {
          return new Response(new Uint8Array([137, 80, 78, 71]), {
            headers: { "Content-Type": "image/png" },
          });
        }
        if (path === "/api/world/create") {
          return Response.json("Save Big.zip created successfully. Command output: \nok");
        }
        return Response.json("not here", { status: 404 });
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it(
    "shows the game's presets and planets, previews on open, and creates with the chosen settings",
    async () => {
      const created = vi.fn();
      render(<WorldGenerator open name="Big" stopped onClose={() => {}} onCreated={created} />);
      const dialog = await screen.findByRole("dialog", { name: "New world" });
      await waitFor(() => expect(posts.some((p) => p.path === "/api/world/preview")).toBe(true));
      expect(within(dialog).getByRole("tab", { name: "Vulcanus" })).toBeTruthy();

      // The rich-resources preset raises iron ore's richness; the seed is set by hand.
      fireEvent.mouseDown(within(dialog).getByLabelText("Preset"));
      fireEvent.click(await screen.findByRole("option", { name: "Rich resources" }));
      const iron =
        within(within(dialog).getByRole("list", { name: "Controls of Nauvis" })).getAllByRole("listitem")[0];
      expect((within(iron).getByLabelText("Richness") as HTMLInputElement).value).toBe("2");
      fireEvent.change(within(dialog).getByLabelText("Seed"), { target: { value: "4242" } });
      fireEvent.click(within(dialog).getByRole("button", { name: "Create world" }));
      await waitFor(() => expect(created).toHaveBeenCalled());
      const create = posts.find((p) => p.path === "/api/world/create")!;
      expect(create.body.name).toBe("Big");
      expect(create.body.settings.map_gen_settings.seed).toBe(4242);
      expect(create.body.settings.map_gen_settings.autoplace_controls["iron-ore"]).toEqual({
        frequency: 1,
        size: 1,
        richness: 2,
      });
    },
    120_000,
  ); // a large MUI dialog under happy-dom: generous on a loaded machine

  it("while the server runs: no preview, and Create is off", async () => {
    render(<WorldGenerator open name="x" stopped={false} onClose={() => {}} onCreated={() => {}} />);
    expect(await screen.findByText("The game renders previews while the server is stopped.")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Create world" }) as HTMLButtonElement).disabled).toBe(true);
    expect(posts.some((p) => p.path === "/api/world/preview")).toBe(false);
  }, 120_000);
});
