import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { ModSearch } from "./ModSearch.tsx";
import type { Searcher } from "./portalSearch.ts";
import Mods from "./Mods.tsx";
import { server } from "../../state/server.ts";
import { flash } from "../../state/flash.ts";
import { MSG } from "../../../../shared/messages.ts";
import type { Mod, ServerStatus } from "../../../../shared/api.ts";

const status = (s: ServerStatus["status"]): ServerStatus => ({
  status: s,
  running: s === "running",
  address: "",
  bindip: "0.0.0.0",
  port: 34197,
  savefile: "",
  fac_version: "2.0.72",
  base_mod_version: "2.0.72",
  since: "2025-01-01T00:00:00Z",
  last_exit: null,
  started_at: null,
  factorio_found: true,
  factorio_dir: "/opt/factorio",
  problems: [],
});

const belt: Mod = {
  name: "belt-balancer",
  title: "Belt Balancer",
  author: "knoxfighter",
  version: "3.0.0",
  file_name: "belt-balancer_3.0.0.zip",
  factorio_version: "1.1.0.0",
  dependencies: [],
  compatibility: true,
  enabled: true,
  built_in: false,
  error: null,
  other_versions: [],
};

describe("ModSearch", () => {
  afterEach(() => vi.useRealTimers());

  it("searches 200 ms after the last keystroke, once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const search = vi.fn(async (q: string) => [{ name: "belt-balancer", title: `Belt Balancer (${q})` }]);
    const searcher: Searcher = { size: 3, search };
    render(<ModSearch searcher={searcher} value={null} onPick={() => {}} />);
    const box = screen.getByLabelText("Search mods");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "bel" } });
    act(() => void vi.advanceTimersByTime(150));
    fireEvent.change(box, { target: { value: "belt" } });
    act(() => void vi.advanceTimersByTime(199));
    expect(search).not.toHaveBeenCalled();
    await act(async () => void vi.advanceTimersByTime(1));
    expect(search).toHaveBeenCalledTimes(1);
    expect(search).toHaveBeenCalledWith("belt");
  });

  it("lists the suggestions in a box about 16rem high and hands over the pick", async () => {
    const picked = vi.fn();
    const searcher: Searcher = { size: 2, search: async () => [{ name: "belt-balancer", title: "Belt Balancer" }, { name: "fp-trains", title: "Train Helper" }] };
    render(<ModSearch searcher={searcher} value={null} onPick={picked} />);
    const box = screen.getByLabelText("Search mods");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "train" } });
    const option = await screen.findByText("Train Helper", {}, { timeout: 2000 });
    expect(screen.getByRole("listbox").style.maxHeight).toBe("16rem");
    fireEvent.click(option);
    expect(picked).toHaveBeenCalledWith({ name: "fp-trains", title: "Train Helper" });
  });
});

describe("Mods page", () => {
  let fetchSpy: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    flash.items.splice(0);
    fetchSpy = vi.fn(async (url: string, init?: RequestInit) => {
      const path = String(url);
      if (path === "/api/mods/list") return Response.json([belt]);
      if (path === "/api/mods/packs/list") return Response.json([{ name: "Weekend", mods: { mods: [belt] } }]);
      if (path === "/api/mods/updates") return Response.json([]);
      if (path === "/api/mods/portal/loginstatus") return Response.json(false);
      if (path === "/api/mods/portal/login") {
        expect(JSON.parse(String(init?.body))).toEqual({ username: "engineer", password: "wrong" });
        return Response.json(MSG.portalLoginFailed, { status: 400 });
      }
      return Response.json("not here", { status: 404 });
    });
    vi.stubGlobal("fetch", fetchSpy);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    server.status = null;
  });

  const renderPage = () => render(<MemoryRouter><Mods /></MemoryRouter>);

  for (const s of [null, "running", "starting", "stopping"] as const) {
    it(`while the server is ${s ?? "unknown"}, says changes are disabled and lists the mods read-only`, async () => {
      server.status = s ? status(s) : null;
      renderPage();
      expect(await screen.findByText(MSG.modsDisabledWhileRunning)).toBeTruthy();
      expect(await screen.findByText("Belt Balancer")).toBeTruthy();
      expect(screen.queryByRole("tab", { name: "Install Mod" })).toBeNull();
      expect((screen.getByRole("switch", { name: "Enable belt-balancer" }) as HTMLInputElement).disabled).toBe(true);
      expect(screen.queryByRole("button", { name: "Delete belt-balancer" })).toBeNull();
    });
  }

  it("when stopped: the three tabs, the Mods card with its buttons, the Mod packs card", async () => {
    server.status = status("stopped");
    renderPage();
    expect(screen.getAllByRole("tab").map((t) => t.textContent)).toEqual(["Installed mods", "Mod settings", "Install Mod", "Upload Mod", "Load Mod from Save"]);
    expect(await screen.findByText("Belt Balancer")).toBeTruthy();
    for (const name of ["Delete all Mods", "Update all Mods", "Download all Mods", "Add ModPack with current installed Mods"]) {
      expect(screen.getByRole(name === "Download all Mods" ? "link" : "button", { name })).toBeTruthy();
    }
    // On narrow screens two columns fold into the name, so they are looked up hidden or not.
    expect(screen.getAllByRole("columnheader", { hidden: true }).slice(0, 5).map((h) => h.textContent)).toEqual([
      "Name", "Enabled", "Compatibility", "Mod Version", "Factorio Version",
    ]);
    // Loading a pack asks first, in the spec's words.
    fireEvent.click(await screen.findByRole("button", { name: "Load mod pack Weekend" }));
    expect(await screen.findByText(MSG.loadModPackConfirm("Weekend"))).toBeTruthy();
  });

  it("a failed portal login shows the spec's message", async () => {
    server.status = status("stopped");
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Login" }));
    expect(await screen.findByText(MSG.usernameRequired)).toBeTruthy();
    expect(screen.getByText(MSG.passwordRequired)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "engineer" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "wrong" } });
    fireEvent.click(screen.getByRole("button", { name: "Login" }));
    await waitFor(() => expect(flash.items.map((f) => [f.message, f.color])).toEqual([[MSG.portalLoginFailed, "error"]]));
  });

  it("the Create Mod Pack form wants a name", async () => {
    server.status = status("stopped");
    renderPage();
    fireEvent.click(screen.getByRole("button", { name: "Add ModPack with current installed Mods" }));
    const form = await screen.findByRole("form", { name: "Create Mod Pack" });
    fireEvent.click(screen.getByRole("button", { name: "Create" }));
    expect(await screen.findByText(MSG.modPackNameRequired)).toBeTruthy();
    expect(form).toBeTruthy();
    expect(fetchSpy.mock.calls.some(([u]) => String(u) === "/api/mods/packs/create")).toBe(false);
  });
});
