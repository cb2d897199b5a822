import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import Saves, { sortSaves } from "./Saves.tsx";
import { formatRate, formatSaveDate, formatSaveSize, formatSaveVersion, formatTimeLeft } from "./format.ts";
import { uploadMeter } from "../../api/client.ts";
import { FakeXhr } from "../../test/fakeXhr.ts";
import { flash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { LOAD_LATEST, type Save, type ServerStatus } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";

// The machine running the suites is busy: give renders and fetches time.
configure({ asyncUtilTimeout: 10_000 });

const SAVES: Save[] = [
  { name: "_autosave1.zip", last_mod: "2024-05-06T07:08:09.123Z", size: 5_242_880 },
  { name: "Welt ü #1.zip", last_mod: "2023-12-31T23:59:59.999Z", size: 1536 },
  { name: LOAD_LATEST, last_mod: "0001-01-01T00:00:00Z", size: 0 },
];

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

let fetchSpy: ReturnType<typeof vi.fn>;
let calls: string[];

function setStatus(status: ServerStatus["status"] | null) {
  server.status = status === null ? null : ({ status } as ServerStatus);
}

beforeEach(() => {
  flash.items.splice(0);
  setStatus("stopped");
  calls = [];
  FakeXhr.last = undefined;
  fetchSpy = vi.fn(async (url: string) => {
    calls.push(url);
    if (url === "/api/saves/list") return json(SAVES);
    if (url.startsWith("/api/saves/create/")) {
      return json(`Save x.zip created successfully. Command output: \nGoodbye`);
    }
    if (url.startsWith("/api/saves/rm/")) return json(`Removed save: ${decodeURIComponent(url.slice(14))}`);
    return json("unexpected", 500);
  });
  vi.stubGlobal("fetch", fetchSpy);
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
  vi.stubGlobal(
    "WebSocket",
    class {
      close() {}
    },
  );
});
afterEach(() => {
  // Unmount first: a page still mounted would refetch with the real fetch once the stubs are gone.
  cleanup();
  server.status = null;
  vi.unstubAllGlobals();
});

describe("formatting", () => {
  it("shows dates as YYYY-MM-DD HH:MM:SS in UTC and sizes in MB with 3 decimals", () => {
    expect(formatSaveDate("2024-05-06T07:08:09.123Z")).toBe("2024-05-06 07:08:09");
    expect(formatSaveDate("2024-05-06T09:08:09+02:00")).toBe("2024-05-06 07:08:09");
    expect(formatSaveDate("not a date")).toBe("");
    expect(formatSaveSize(5_242_880)).toBe("5.000 MB");
    expect(formatSaveSize(1536)).toBe("0.001 MB");
    expect(formatSaveSize(0)).toBe("0.000 MB");
  });

  it("shows versions as the game does, upload speeds, and time left", () => {
    expect([formatSaveVersion("2.0.28.0"), formatSaveVersion(null), formatSaveVersion(undefined)]).toEqual([
      "2.0.28",
      "",
      "",
    ]);
    expect(formatRate(2.5 * 1024 * 1024)).toBe("2.5 MB/s");
    expect([formatTimeLeft(0.2), formatTimeLeft(40), formatTimeLeft(185), formatTimeLeft(3720)]).toEqual([
      "1 s",
      "40 s",
      "3 min 05 s",
      "1 h 02 min",
    ]);
  });

  it("measures an upload's speed over the last seconds, and the time left at that speed", () => {
    let now = 0;
    const meter = uploadMeter(() => now);
    const MB = 1024 * 1024;
    expect(meter(0, 10 * MB)).toEqual({ loaded: 0, total: 10 * MB });
    now = 500;
    expect(meter(MB / 2, 10 * MB)).toEqual({ loaded: MB / 2, total: 10 * MB }); // under a second: no speed yet
    now = 2000;
    expect(meter(2 * MB, 10 * MB)).toEqual({
      loaded: 2 * MB,
      total: 10 * MB,
      bytesPerSecond: MB,
      secondsLeft: 8,
    });
    // Faster later on (1.5 MB/s from second 2): once the 5 s window has passed, only the recent seconds count.
    const at = (t: number) => 2 * MB + ((t - 2000) / 1000) * 1.5 * MB;
    for (let t = 3000; t <= 9000; t += 1000) {
      now = t;
      meter(at(t), 20 * MB);
    }
    now = 10000;
    const p = meter(at(now), 20 * MB);
    expect(p.bytesPerSecond).toBeCloseTo(1.5 * MB);
    expect(p.secondsLeft).toBeCloseTo((20 - 14) / 1.5);
  });

  it("sorts saves by each column, ties by name, Load Latest always last", () => {
    const s = (name: string, last_mod: string, size: number, factorio_version: string | null): Save => ({
      name,
      last_mod,
      size,
      factorio_version,
    });
    const list = [
      s("b.zip", "2024-01-01T00:00:00Z", 30, "1.1.110.0"),
      s("a10.zip", "2025-01-01T00:00:00Z", 10, "2.0.7.0"),
      s(LOAD_LATEST, "0001-01-01T00:00:00Z", 0, null),
      s("a9.zip", "2023-01-01T00:00:00Z", 30, null),
    ];
    const names = (by: Parameters<typeof sortSaves>[1]["by"], desc = false) =>
      sortSaves(list, { by, desc }).map((x) => x.name);
    expect(names("name")).toEqual(["a9.zip", "a10.zip", "b.zip", LOAD_LATEST]);
    expect(names("name", true)).toEqual(["b.zip", "a10.zip", "a9.zip", LOAD_LATEST]);
    expect(names("last_mod", true)).toEqual(["a10.zip", "b.zip", "a9.zip", LOAD_LATEST]);
    expect(names("size", true)).toEqual(["a9.zip", "b.zip", "a10.zip", LOAD_LATEST]);
    expect(names("factorio_version", true)).toEqual(["a10.zip", "b.zip", "a9.zip", LOAD_LATEST]);
  });
});

describe("Saves page", () => {
  it("lists the saves with start, download and delete; Load Latest can only be started", async () => {
    render(<Saves />);
    const table = await screen.findByRole("table", { name: "Saves" });
    const rows = await within(table).findAllByRole("row");
    expect(rows.map((r) => r.textContent)).toHaveLength(4);
    const auto = within(table).getByRole("row", { name: /_autosave1\.zip/ });
    expect(auto.textContent).toContain("2024-05-06 07:08:09 UTC");
    expect(auto.textContent).toContain("5.000 MB");
    const link = within(table).getByRole("link", { name: "Download Welt ü #1.zip" });
    expect(link.getAttribute("href")).toBe("/api/saves/dl/Welt%20%C3%BC%20%231.zip");
    const latest = within(table).getByRole("row", { name: /Load Latest/ });
    expect(within(latest).queryAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "Start Load Latest",
    ]);
    expect(within(latest).queryAllByRole("link")).toHaveLength(0);
  });

  it("a long list: every save is shown, the first ones with the page", async () => {
    const many: Save[] = Array.from(
      { length: 150 },
      (_, i) => ({
        name: `w${String(i).padStart(3, "0")}.zip`,
        last_mod: "2024-05-06T07:08:09.123Z",
        size: 1024,
      }),
    );
    fetchSpy.mockImplementation(async (
      url: string,
    ) => (url === "/api/saves/list" ? json(many) : json("unexpected", 500)));
    render(<Saves />);
    const table = await screen.findByRole("table", { name: "Saves" });
    await within(table).findByText("w000.zip");
    await within(table).findByText("w149.zip");
    expect(within(table).getAllByRole("row")).toHaveLength(151);
  }, 60_000);

  it(
    "Start this save names where it starts: the last start's address, or the defaults before any start",
    async () => {
      server.status = { status: "stopped", bindip: "", port: 0, savefile: "" } as ServerStatus;
      render(<Saves />);
      fireEvent.click(await screen.findByRole("button", { name: "Start Welt ü #1.zip" }));
      expect((await screen.findByRole("dialog", { name: "Start this save" })).textContent)
        .toContain(
          "The server starts on Welt ü #1.zip, at 0.0.0.0:34197 (the defaults: it has not been started since the panel started).",
        );
      fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
      await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
      act(() => {
        server.status = {
          status: "stopped",
          bindip: "127.0.0.1",
          port: 34500,
          savefile: "_autosave1.zip",
        } as ServerStatus;
      });
      fireEvent.click(screen.getByRole("button", { name: "Start Load Latest" }));
      expect((await screen.findByRole("dialog", { name: "Start this save" })).textContent)
        .toContain(
          "The server starts on the newest save, at 127.0.0.1:34500 (the address and port of its last start).",
        );
      expect(calls.some((u) => u === "/api/server/start")).toBe(false);
    },
    60_000,
  );

  it("deletes only after confirmation", async () => {
    render(<Saves />);
    fireEvent.click(await screen.findByRole("button", { name: "Delete _autosave1.zip" }));
    const dialog = await screen.findByRole("dialog");
    expect(dialog.textContent).toContain(PANEL_MSG.saveDeleteConfirm("_autosave1.zip"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls.some((u) => u.startsWith("/api/saves/rm/"))).toBe(false);

    fireEvent.click(await screen.findByRole("button", { name: "Delete _autosave1.zip" }));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(calls).toContain("/api/saves/rm/_autosave1.zip"));
    await waitFor(() => expect(flash.items.map((f) => f.message)).toContain("Removed save: _autosave1.zip"));
    await waitFor(() =>
      expect(calls.filter((u) => u === "/api/saves/list").length).toBeGreaterThanOrEqual(2)
    );
  }, 60_000);

  it("create: the name is required; a created save is announced and the list reloaded", async () => {
    render(<Saves />);
    const form = await screen.findByRole("form", { name: "Create Save" });
    fireEvent.click(within(form).getByRole("button", { name: "Create Save" }));
    expect(await within(form).findByText(MSG.savefileNameRequired)).toBeTruthy();
    expect(calls.some((u) => u.startsWith("/api/saves/create/"))).toBe(false);

    fireEvent.change(within(form).getByLabelText("Savefile Name"), { target: { value: "My World/2" } });
    fireEvent.click(within(form).getByRole("button", { name: "Create Save" }));
    await waitFor(() => expect(calls).toContain("/api/saves/create/My%20World%2F2"));
    await waitFor(() =>
      expect(flash.items.map((f) => f.message)).toContain("Save x.zip created successfully.")
    );
  });

  it("create: the game's output of a failed create stays on the page", async () => {
    fetchSpy.mockImplementation(async (url: string) => {
      if (url === "/api/saves/list") return json(SAVES);
      return json("Error creating save w.zip: exit status 1\nGame output:\nFailed to load mods", 500);
    });
    render(<Saves />);
    const form = await screen.findByRole("form", { name: "Create Save" });
    fireEvent.change(within(form).getByLabelText("Savefile Name"), { target: { value: "w" } });
    fireEvent.click(within(form).getByRole("button", { name: "Create Save" }));
    const alert = await within(form).findByRole("alert");
    expect(alert.textContent).toContain("Failed to load mods");
    expect(flash.items).toHaveLength(0);
  });

  it("while the server runs, creating is replaced by the spec's text; uploading stays", async () => {
    setStatus("running");
    render(<Saves />);
    expect(await screen.findByText(MSG.createSaveWhileRunning)).toBeTruthy();
    expect(screen.queryByRole("form", { name: "Create Save" })).toBeNull();
    expect(screen.getByRole("form", { name: "Upload Save" })).toBeTruthy();
    act(() => setStatus("stopped"));
    expect(await screen.findByRole("form", { name: "Create Save" })).toBeTruthy();
  });

  it("upload: a file is required and must be a zip; the progress bar follows the upload", async () => {
    render(<Saves />);
    const form = await screen.findByRole("form", { name: "Upload Save" });
    fireEvent.click(within(form).getByRole("button", { name: "Upload" }));
    expect(await within(form).findByText(MSG.savefileRequired)).toBeTruthy();

    const input = within(form).getByLabelText("Savefile") as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(["x"], "notes.txt")] } });
    fireEvent.click(within(form).getByRole("button", { name: "Upload" }));
    expect(await within(form).findByText(PANEL_MSG.saveFormatNotAllowed("txt"))).toBeTruthy();
    expect(FakeXhr.last).toBeUndefined();

    const file = new File([new Uint8Array(2048)], "world.zip", { type: "application/zip" });
    fireEvent.change(input, { target: { files: [file] } });
    expect(within(form).getByTestId("chosen-file").textContent).toContain("world.zip");
    fireEvent.click(within(form).getByRole("button", { name: "Upload" }));
    // The list is asked for again first (a save of that name may have appeared): then the upload.
    await waitFor(() => expect(FakeXhr.last).toBeDefined());
    const xhr = FakeXhr.last!;
    expect(xhr.url).toBe("/api/saves/upload");
    expect((xhr.body!.get("savefile") as File).name).toBe("world.zip");
    act(() => xhr.progress(1024, 2048));
    const bar = within(form).getByRole("progressbar", { name: "Upload progress" });
    expect(bar.getAttribute("aria-valuenow")).toBe("50");
    expect(within(form).getByRole("button", { name: "Upload" })).toHaveProperty("disabled", true);
    await act(async () => xhr.answer(200, "Uploading files successful"));
    await waitFor(() =>
      expect(flash.items.map((f) => f.message)).toContain(PANEL_MSG.saveUploaded("world.zip"))
    );
    expect(within(form).queryByRole("progressbar")).toBeNull();
    expect(within(form).getByTestId("chosen-file").textContent).toBe("No file chosen");
  });

  it("upload: the server's refusal is flashed and the bar goes away", async () => {
    render(<Saves />);
    const form = await screen.findByRole("form", { name: "Upload Save" });
    fireEvent.change(within(form).getByLabelText("Savefile"), {
      target: { files: [new File(["x"], "bad.zip")] },
    });
    fireEvent.click(within(form).getByRole("button", { name: "Upload" }));
    await waitFor(() => expect(FakeXhr.last).toBeDefined());
    await act(async () => FakeXhr.last!.answer(415, "bad.zip is not a Factorio save: it is not a zip file."));
    await waitFor(() =>
      expect(flash.items.map((f) => f.message)).toContain(
        "bad.zip is not a Factorio save: it is not a zip file.",
      )
    );
    expect(within(form).queryByRole("progressbar")).toBeNull();
  });

  it("upload: a save of that name that appeared after the page's list still asks before replacing", async () => {
    render(<Saves />);
    const form = await screen.findByRole("form", { name: "Upload Save" });
    await screen.findByRole("table", { name: "Saves" });
    // The game (or another admin) saved world.zip since the page listed the saves.
    fetchSpy.mockImplementation(async (url: string) => {
      calls.push(url);
      if (url === "/api/saves/list") {
        return json([{ name: "world.zip", last_mod: "2024-05-06T07:08:09.123Z", size: 2048 }, ...SAVES]);
      }
      return json("unexpected", 500);
    });
    fireEvent.change(within(form).getByLabelText("Savefile"), {
      target: { files: [new File([new Uint8Array(8)], "world.zip")] },
    });
    fireEvent.click(within(form).getByRole("button", { name: "Upload" }));
    const dialog = await screen.findByRole("dialog", { name: "Replace save" });
    expect(dialog.textContent).toContain(PANEL_MSG.replaceSaveConfirm("world.zip"));
    expect(FakeXhr.last).toBeUndefined();
  });
});
