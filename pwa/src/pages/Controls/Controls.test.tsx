import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import Controls from "./Controls.tsx";
import { server } from "../../state/server.ts";
import { flash } from "../../state/flash.ts";
import type { Save, ServerStatus } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import type { VersionsAnswer } from "../../../../shared/factorio-versions.ts";

const base: ServerStatus = {
  status: "stopped",
  running: false,
  address: "",
  bindip: "0.0.0.0",
  port: 34197,
  savefile: "",
  fac_version: "2.0.72.0",
  base_mod_version: "2.0.72",
  since: "2026-01-01T00:00:00.000Z",
  last_exit: null,
  started_at: null,
  factorio_found: true,
  factorio_dir: "/opt/factorio",
  problems: [],
  last_start: null,
};

const versions: VersionsAnswer = {
  installed: [{ version: "2.0.72", active: true, managed: true }, {
    version: "2.0.70",
    active: false,
    managed: true,
  }],
  available: [
    { version: "2.1.12", channel: "experimental" },
    { version: "2.0.77", channel: "stable" },
    { version: "2.0.72", channel: "stable" },
  ],
  install: null,
  update: null,
  updateAvailable: {
    channel: "stable",
    current: "2.0.72",
    latest: "2.0.77",
    checkedAt: "2026-01-01T00:00:00.000Z",
  },
  gameFound: true,
  channel: "stable",
  availableError: null,
};

const loadLatest: Save = { name: "Load Latest", last_mod: "0001-01-01T00:00:00Z", size: 0 };

function stubFetch(saves: Save[], answers: Record<string, [number, unknown]> = {}) {
  const calls: { url: string; method: string; body: unknown }[] = [];
  const spy = vi.fn(async (url: string, init?: RequestInit) => {
    calls.push({
      url,
      method: init?.method ?? "GET",
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    });
    if (url === "/api/saves/list") return new Response(JSON.stringify(saves));
    if (url === "/api/factorio/versions" && !answers[url]) return new Response(JSON.stringify(versions));
    const [status, body] = answers[url] ?? [200, base];
    return new Response(JSON.stringify(body), { status });
  });
  vi.stubGlobal("fetch", spy);
  return calls;
}

// The page renders two panels and loads saves and versions: on a loaded machine that takes longer than
// vitest's 5 s default per test.
describe("Controls", { timeout: 30_000 }, () => {
  beforeEach(() => {
    flash.items.splice(0);
    server.status = { ...base };
    // As on localhost or over HTTPS: no note about plain HTTP (HttpsNote.test.tsx has it).
    vi.stubGlobal("isSecureContext", true);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("stopped: the start form with the spec's defaults, and its validation messages", async () => {
    const calls = stubFetch([{ name: "world.zip", last_mod: "", size: 1 }, loadLatest]);
    render(<Controls />);
    const form = screen.getByRole("form", { name: "Start Server" });
    expect((within(form).getByLabelText("IP") as HTMLInputElement).value).toBe("0.0.0.0");
    expect((within(form).getByLabelText("Port") as HTMLInputElement).value).toBe("34197");
    expect(within(form).getByRole("combobox").textContent).toBe("Load Latest");
    expect(screen.getByTestId("server-version").textContent).toBe("2.0.72");
    fireEvent.change(within(form).getByLabelText("IP"), { target: { value: "1.2.3" } });
    fireEvent.change(within(form).getByLabelText("Port"), { target: { value: "" } });
    fireEvent.click(within(form).getByRole("button", { name: "Start Server" }));
    expect(await screen.findByText(MSG.ipInvalid)).toBeTruthy();
    expect(screen.getByText(MSG.portRequired)).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/server/start")).toBe(false);
  });

  it("stopped after a run: the start form offers what the last start asked for, as the panel kept it", async () => {
    stubFetch([{ name: "world.zip", last_mod: "", size: 1 }, loadLatest]);
    server.status = { ...base, last_start: { bindip: "10.0.0.5", port: 34500, savefile: "world.zip" } };
    render(<Controls />);
    const form = screen.getByRole("form", { name: "Start Server" });
    expect((within(form).getByLabelText("IP") as HTMLInputElement).value).toBe("10.0.0.5");
    expect((within(form).getByLabelText("Port") as HTMLInputElement).value).toBe("34500");
    expect(within(form).getByRole("combobox").textContent).toBe("world.zip");
  });

  it("refuses to start when Load Latest is the only save, with the spec's red flash", async () => {
    const calls = stubFetch([loadLatest]);
    render(<Controls />);
    const form = screen.getByRole("form", { name: "Start Server" });
    await waitFor(() => expect(form.dataset.savesLoaded).toBe("true"));
    fireEvent.click(screen.getByRole("button", { name: "Start Server" }));
    await waitFor(() =>
      expect(flash.items.map((f) => [f.message, f.color])).toEqual([[MSG.saveMustBeCreated, "error"]])
    );
    expect(calls.some((c) => c.url === "/api/server/start")).toBe(false);
  });

  it("sends bindip, port (a number) and savefile, and flashes the answer", async () => {
    const calls = stubFetch([{ name: "world.zip", last_mod: "", size: 1 }, loadLatest], {
      "/api/server/start": [200, PANEL_MSG.serverStarted("Load Latest", 34500)],
    });
    render(<Controls />);
    fireEvent.change(screen.getByLabelText("IP"), { target: { value: "127.0.0.1" } });
    fireEvent.change(screen.getByLabelText("Port"), { target: { value: "34500" } });
    await waitFor(() =>
      expect(screen.getByRole("form", { name: "Start Server" }).dataset.savesLoaded).toBe("true")
    );
    fireEvent.click(screen.getByRole("button", { name: "Start Server" }));
    await waitFor(() => expect(flash.items[0]?.color).toBe("success"));
    expect(calls.find((c) => c.url === "/api/server/start")?.body).toEqual({
      bindip: "127.0.0.1",
      port: 34500,
      savefile: "Load Latest",
    });
  });

  it("running: address, port and save with the two buttons; Kill asks first", async () => {
    server.status = {
      ...base,
      status: "running",
      running: true,
      address: "10.0.0.5",
      port: 34197,
      savefile: "world.zip",
    };
    const calls = stubFetch([], { "/api/server/kill": [200, PANEL_MSG.serverKilled] });
    render(<Controls />);
    expect(screen.getByTestId("server-address").textContent).toBe("10.0.0.5");
    expect(screen.getByTestId("server-save").textContent).toBe("world.zip");
    expect(screen.queryByRole("form", { name: "Start Server" })).toBeNull();
    expect(screen.getByRole("button", { name: "Save & Stop Server" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Kill Server" }));
    const dialog = await screen.findByRole("dialog");
    expect(dialog.textContent).toContain(PANEL_MSG.killConfirm);
    expect(calls.some((c) => c.url === "/api/server/kill")).toBe(false);
    fireEvent.click(within(dialog).getByRole("button", { name: "Kill Server" }));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/server/kill")).toBe(true));
  });

  it("shows how the server crashed: time, exit code, last lines", () => {
    server.status = {
      ...base,
      last_exit: {
        reason: "crashed",
        code: 3,
        signal: null,
        at: "2026-02-03T04:05:06.000Z",
        last_lines: ["a line", "Factorio crashed."],
      },
    };
    stubFetch([loadLatest]);
    render(<Controls />);
    const crash = screen.getByRole("region", { name: "Last crash" });
    expect(crash.textContent).toContain("The server stopped unexpectedly");
    expect(crash.textContent).toContain("At 2026-02-03 04:05:06 UTC (exit code 3).");
    expect(within(crash).getByLabelText("Last lines of the crashed server").textContent).toBe(
      "a line\nFactorio crashed.",
    );
  });

  it("a normal stop is not shown as a crash", () => {
    server.status = {
      ...base,
      last_exit: { reason: "stopped", code: 0, signal: null, at: base.since, last_lines: [] },
    };
    stubFetch([loadLatest]);
    render(<Controls />);
    expect(screen.queryByRole("region", { name: "Last crash" })).toBeNull();
  });

  it("no game found: Install Factorio with channel and exact version, newest first", async () => {
    const calls = stubFetch([loadLatest], {
      "/api/factorio/versions": [200, {
        ...versions,
        installed: [],
        updateAvailable: null,
        gameFound: false,
      }],
      "/api/factorio/install": [202, "Installing Factorio 2.0.77."],
    });
    render(<Controls />);
    const card = await screen.findByRole("region", { name: "Install Factorio" });
    const version = within(card).getAllByRole("combobox")[1];
    expect(version.textContent).toBe("2.0.77 (stable)");
    fireEvent.mouseDown(within(card).getAllByRole("combobox")[0]);
    fireEvent.click(await screen.findByRole("option", { name: "Experimental" }));
    await waitFor(() =>
      expect(within(card).getAllByRole("combobox")[1].textContent).toBe("2.1.12 (experimental)")
    );
    fireEvent.click(within(card).getByRole("button", { name: "Install Factorio" }));
    await waitFor(() =>
      expect(calls.find((c) => c.url === "/api/factorio/install")?.body).toEqual({ version: "2.1.12" })
    );
  });

  it("a game found: update available, installed versions with activate and delete", async () => {
    const calls = stubFetch([loadLatest], {
      "/api/factorio/update": [202, "Updating from Factorio 2.0.72 to 2.0.77."],
    });
    render(<Controls />);
    const card = await screen.findByRole("region", { name: "Game versions" });
    expect(await within(card).findByText("Update available: 2.0.72 → 2.0.77")).toBeTruthy();
    const list = within(card).getByRole("list", { name: "Installed versions" });
    expect(within(list).getAllByRole("button", { name: "Activate" }).length).toBe(1);
    expect(within(list).getByRole("button", { name: "Delete Factorio 2.0.70" })).toBeTruthy();
    fireEvent.click(within(card).getByRole("button", { name: "Update" }));
    await waitFor(() =>
      expect(calls.find((c) => c.url === "/api/factorio/update")?.body).toEqual({ version: "2.0.77" })
    );
  });

  it("asks for the versions once per visit, and again when the server's state changes", async () => {
    const calls = stubFetch([loadLatest]);
    const asked = () => calls.filter((c) => c.url === "/api/factorio/versions").length;
    render(<Controls />);
    const card = await screen.findByRole("region", { name: "Game versions" });
    await within(card).findByText("Update available: 2.0.72 → 2.0.77");
    expect(asked()).toBe(1);
    server.status = { ...base, status: "running", running: true, address: "10.0.0.5", savefile: "world.zip" };
    await waitFor(() => expect(asked()).toBe(2));
  });

  it("running: Update & restart asks first", async () => {
    server.status = { ...base, status: "running", running: true, address: "10.0.0.5", savefile: "world.zip" };
    const calls = stubFetch([], { "/api/factorio/update": [202, "Updating"] });
    render(<Controls />);
    const card = await screen.findByRole("region", { name: "Game versions" });
    expect((await within(card).findByRole("button", { name: "Activate" })).hasAttribute("disabled")).toBe(
      true,
    );
    fireEvent.click(await within(card).findByRole("button", { name: "Update & restart" }));
    const dialog = await screen.findByRole("dialog");
    expect(calls.some((c) => c.url === "/api/factorio/update")).toBe(false);
    fireEvent.click(within(dialog).getByRole("button", { name: "Update & restart" }));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/factorio/update")).toBe(true));
  });
});
