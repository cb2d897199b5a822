import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { FIRST_ROWS, ModSearch } from "./ModSearch.tsx";
import type { Searcher } from "./portalSearch.ts";
import Mods from "./Mods.tsx";
import { server } from "../../state/server.ts";
import { flash } from "../../state/flash.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
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
  last_start: null,
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
    const searcher: Searcher = {
      size: 2,
      search: async () => [{ name: "belt-balancer", title: "Belt Balancer" }, {
        name: "fp-trains",
        title: "Train Helper",
      }],
    };
    render(<ModSearch searcher={searcher} value={null} onPick={picked} />);
    const box = screen.getByLabelText("Search mods");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "train" } });
    const option = await screen.findByText("Train Helper", {}, { timeout: 2000 });
    expect(screen.getByRole("listbox").style.maxHeight).toBe("16rem");
    fireEvent.click(option);
    expect(picked).toHaveBeenCalledWith({ name: "fp-trains", title: "Train Helper" });
    expect(box).toHaveProperty("value", "Train Helper");
  });

  it("renders the first rows of the suggestions, and all of them once the list is scrolled or the highlight nears the end", async () => {
    const searcher: Searcher = {
      size: 50,
      search: async (q) => Array.from({ length: 25 }, (_, i) => ({ name: `${q}-${i}`, title: `${q} ${i}` })),
    };
    render(<ModSearch searcher={searcher} value={null} onPick={() => {}} />);
    const box = screen.getByLabelText("Search mods");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "train" } });
    await screen.findByText("train 0", {}, { timeout: 2000 });
    expect(screen.getAllByRole("option")).toHaveLength(FIRST_ROWS);
    // The keyboard reaches every suggestion: the highlight near the last row rendered renders the rest.
    for (let i = 0; i < FIRST_ROWS - 2; i++) fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")).toHaveLength(25);
    fireEvent.keyDown(box, { key: "End" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(box).toHaveProperty("value", "train 24");

    // So does scrolling the list.
    fireEvent.change(box, { target: { value: "train x" } });
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(FIRST_ROWS), { timeout: 2000 });
    fireEvent.scroll(screen.getByRole("listbox"));
    expect(screen.getAllByRole("option")).toHaveLength(25);
  });

  it("opens the list once the typed letter's frame is painted; Escape closes it; leaving before then keeps it shut", async () => {
    const searcher: Searcher = {
      size: 2,
      search: async () => [{ name: "fp-trains", title: "Train Helper" }],
    };
    render(<ModSearch searcher={searcher} value={null} onPick={() => {}} />);
    const box = screen.getByLabelText("Search mods");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "t" } });
    // Not opened from within the key's own event: the list (here its "too short" line) comes a frame later.
    expect(screen.queryByText("Type at least 3 characters")).toBeNull();
    await screen.findByText("Type at least 3 characters");
    await screen.findByText("Train Helper", {}, { timeout: 2000 });
    expect(box.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(box, { key: "Escape" });
    expect(box.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByText("Train Helper")).toBeNull();

    // Typed and left at once: the deferred open is dropped, the list stays shut.
    fireEvent.change(box, { target: { value: "tr" } });
    fireEvent.blur(box);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20)));
    expect(screen.queryByText("Type at least 3 characters")).toBeNull();
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  // The box keeps its own text while typing (the Autocomplete hears of it when typing pauses): leaving
  // it still does what the Autocomplete does, also right after a keystroke.
  it("leaving the box puts back the picked mod's title, or clears it, also right after typing", () => {
    const searcher: Searcher = { size: 2, search: async () => [] };
    const { rerender } = render(<ModSearch searcher={searcher} value={null} onPick={() => {}} />);
    const box = screen.getByLabelText("Search mods");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "trai" } });
    fireEvent.blur(box);
    expect(box).toHaveProperty("value", "");

    const picked = { name: "fp-trains", title: "Train Helper" };
    rerender(<ModSearch searcher={searcher} value={picked} onPick={() => {}} />);
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "Train Helper x" } });
    fireEvent.blur(box);
    expect(box).toHaveProperty("value", "Train Helper");
  });
});

describe("Mods page", () => {
  let fetchSpy: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    flash.items.splice(0);
    fetchSpy = vi.fn(async (url: string, init?: RequestInit) => {
      const path = String(url);
      if (path === "/api/mods/list") return Response.json([belt]);
      if (path === "/api/mods/packs/list") {
        return Response.json([{ name: "Weekend", mods: { mods: [belt] } }]);
      }
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

  const renderPage = () =>
    render(
      <MemoryRouter>
        <Mods />
      </MemoryRouter>,
    );

  for (const s of [null, "running", "starting", "stopping"] as const) {
    it(`while the server is ${s ?? "unknown"}, says why changes wait and lists the mods read-only`, async () => {
      server.status = s ? status(s) : null;
      renderPage();
      // Unknown is not "running": it says it is still finding out.
      expect(await screen.findByText(s ? MSG.modsDisabledWhileRunning : PANEL_MSG.modsWaitForStatus))
        .toBeTruthy();
      if (!s) expect(screen.queryByText(MSG.modsDisabledWhileRunning)).toBeNull();
      expect(await screen.findByText("Belt Balancer")).toBeTruthy();
      expect(screen.queryByRole("tab", { name: "Install Mod" })).toBeNull();
      expect((screen.getByRole("switch", { name: "Enable belt-balancer" }) as HTMLInputElement).disabled)
        .toBe(true);
      expect(screen.queryByRole("button", { name: "Delete belt-balancer" })).toBeNull();
    });
  }

  it("asks for the mods and the packs once on arrival, and both again after a change", async () => {
    server.status = status("stopped");
    renderPage();
    const asked = (path: string) => fetchSpy.mock.calls.filter(([u]) => u === path).length;
    expect(await screen.findByText("Weekend")).toBeTruthy();
    expect(await screen.findByText("Belt Balancer")).toBeTruthy();
    expect([asked("/api/mods/list"), asked("/api/mods/packs/list")]).toEqual([1, 1]);
    fireEvent.click(await screen.findByRole("button", { name: "Delete belt-balancer" }));
    fireEvent.click(await screen.findByRole("button", { name: "Delete" }));
    await waitFor(() => expect([asked("/api/mods/list"), asked("/api/mods/packs/list")]).toEqual([2, 2]));
  });

  it("an updates check still waiting is given up when the page is left", async () => {
    server.status = status("stopped");
    const waiting: AbortSignal[] = [];
    const answer = fetchSpy.getMockImplementation() as (url: string, init?: RequestInit) => Promise<Response>;
    fetchSpy.mockImplementation((url: string, init?: RequestInit) => {
      if (String(url) !== "/api/mods/updates") return answer(url, init);
      // A portal that does not answer: the request waits until it is aborted.
      waiting.push(init!.signal!);
      return new Promise((_, reject) =>
        init!.signal!.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))
      );
    });
    const { unmount } = renderPage();
    await waitFor(() => expect(waiting).toHaveLength(1));
    expect(waiting[0].aborted).toBe(false);
    unmount();
    expect(waiting[0].aborted).toBe(true);
  });

  it("deleting one mod asks first, with Cancel focused", async () => {
    server.status = status("stopped");
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Delete belt-balancer" }));
    const dialog = await screen.findByRole("dialog");
    expect(dialog.textContent).toContain(PANEL_MSG.deleteModConfirm("belt-balancer"));
    const calls = () => fetchSpy.mock.calls.filter(([u]) => u === "/api/mods/delete");
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Cancel"));
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls()).toHaveLength(0);
    fireEvent.click(await screen.findByRole("button", { name: "Delete belt-balancer" }));
    fireEvent.click(await screen.findByRole("button", { name: "Delete" }));
    await waitFor(() => expect(calls()).toHaveLength(1));
    expect(JSON.parse(String(calls()[0][1]?.body))).toEqual({ name: "belt-balancer" });
  });

  it("when stopped: the three tabs, the Mods card with its buttons, the Mod packs card", async () => {
    server.status = status("stopped");
    renderPage();
    expect(screen.getAllByRole("tab").map((t) => t.textContent)).toEqual([
      "Installed mods",
      "Mod settings",
      "Install Mod",
      "Upload Mod",
      "Load Mod from Save",
    ]);
    expect(await screen.findByText("Belt Balancer")).toBeTruthy();
    for (
      const name of [
        "Delete all Mods",
        "Update all Mods",
        "Download all Mods",
        "Add ModPack with current installed Mods",
      ]
    ) {
      expect(screen.getByRole(name === "Download all Mods" ? "link" : "button", { name })).toBeTruthy();
    }
    // On narrow screens two columns fold into the name, so they are looked up hidden or not.
    expect(screen.getAllByRole("columnheader", { hidden: true }).slice(0, 5).map((h) => h.textContent))
      .toEqual([
        "Name",
        "Enabled",
        "Compatibility",
        "Mod Version",
        "Factorio Version",
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
    await waitFor(() =>
      expect(flash.items.map((f) => [f.message, f.color])).toEqual([[MSG.portalLoginFailed, "error"]])
    );
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
