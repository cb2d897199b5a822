// Importing a server's archive on the Servers page: the upload's progress, the panel's lines, the list
// asked for again (the new server in it), and a refusal in the panel's own words.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import ServersAdmin from "./ServersAdmin.tsx";
import { PANEL_HEADER } from "../../api/client.ts";
import { FakeXhr } from "../../test/fakeXhr.ts";
import { serverSummary } from "../../test/servers.ts";
import { flash } from "../../state/flash.ts";
import { serverList } from "../../state/servers.ts";
import { session } from "../../state/session.ts";
import type { ServerSummary } from "../../../../shared/contract/servers.ts";
import type { ImportResult } from "../../../../shared/contract/transfer.ts";
import { SERVERS_UI } from "../../../../shared/servers.ts";

configure({ asyncUtilTimeout: 10_000 });

/** A server as the admins' list shows it, with its folder. */
const server = (id: number, name: string) => serverSummary(id, name, { dir: `/data/servers/${id}` });

let servers: ServerSummary[];

beforeEach(() => {
  session.user = { username: "admin", role: "admin", email: "" };
  flash.items.splice(0);
  FakeXhr.last = undefined;
  servers = [server(1, "Main")];
  vi.stubGlobal(
    "fetch",
    vi.fn((url: string) => {
      const ok = (body: unknown) =>
        Promise.resolve(
          new Response(JSON.stringify(body), { status: 200, headers: { [PANEL_HEADER]: "1" } }),
        );
      if (url === "/api/servers") return ok(servers);
      if (url === "/api/factorio/versions") return ok({ installed: [] });
      return ok([]);
    }),
  );
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  serverList.list = null;
  serverList.at = null;
  session.user = null;
});

function show() {
  render(
    <MemoryRouter>
      <ServersAdmin />
    </MemoryRouter>,
  );
  return screen.getByRole("form", { name: SERVERS_UI.importTitle });
}

describe("Import a server", () => {
  it("uploads the archive with its progress, shows the panel's lines and the new server in the list", async () => {
    const form = show();
    await screen.findByTestId("server-row-1");
    fireEvent.click(within(form).getByRole("button", { name: SERVERS_UI.importButton }));
    expect(await within(form).findByText(SERVERS_UI.importRequired)).toBeTruthy();
    expect(FakeXhr.last).toBeUndefined();

    const file = new File([new Uint8Array(4096)], "moon.zip", { type: "application/zip" });
    fireEvent.change(within(form).getByLabelText(SERVERS_UI.importFile), { target: { files: [file] } });
    fireEvent.click(within(form).getByRole("button", { name: SERVERS_UI.importButton }));
    await waitFor(() => expect(FakeXhr.last).toBeDefined());
    const xhr = FakeXhr.last!;
    expect(xhr.url).toBe("/api/servers/import");
    expect((xhr.body!.get("archive") as File).name).toBe("moon.zip");
    act(() => xhr.progress(1024, 4096));
    expect(within(form).getByRole("progressbar", { name: "Upload progress" }).getAttribute("aria-valuenow"))
      .toBe("25");
    expect(within(form).getByTestId("upload-progress").textContent).toMatch(/^25 % · /);
    expect(within(form).getByRole("button", { name: SERVERS_UI.importButton })).toHaveProperty(
      "disabled",
      true,
    );
    act(() => xhr.progress(4096, 4096));
    expect(within(form).getByTestId("upload-progress").textContent).toContain(SERVERS_UI.importChecking);

    servers = [server(1, "Main"), server(2, "Moon base")];
    const answer: ImportResult = {
      lines: ['Server 2 "Moon base" (game port 34198, Factorio 2.0.72)', "saves: moon.zip"],
      passwords: [],
      admin_password_replaced: false,
      server: 2,
    };
    await act(async () => xhr.answer(200, answer));
    expect((await within(form).findByLabelText(SERVERS_UI.imported)).textContent).toBe(
      answer.lines.join("\n"),
    );
    expect(await screen.findByTestId("server-row-2")).toBeTruthy();
    expect(within(screen.getByTestId("server-row-2")).getByText("Moon base")).toBeTruthy();
    await waitFor(() => expect(flash.items.map((f) => f.message)).toContain(SERVERS_UI.added("Moon base")));
    expect(within(form).queryByRole("progressbar")).toBeNull();
    expect(within(form).getByText("No file chosen")).toBeTruthy();
  });

  it("a refusal stays in the form in the panel's words, and the list stays as it was", async () => {
    const form = show();
    await screen.findByTestId("server-row-1");
    fireEvent.change(within(form).getByLabelText(SERVERS_UI.importFile), {
      target: { files: [new File(["x"], "panel.zip")] },
    });
    fireEvent.click(within(form).getByRole("button", { name: SERVERS_UI.importButton }));
    await waitFor(() => expect(FakeXhr.last).toBeDefined());
    const words =
      "The archive cannot be imported: it holds a whole panel, not one server. Nothing was changed.";
    await act(async () => FakeXhr.last!.answer(400, words));
    expect(within(await within(form).findByRole("alert")).getByText(words)).toBeTruthy();
    expect(flash.items).toHaveLength(0);
    expect(screen.queryByTestId("server-row-2")).toBeNull();
    expect(within(form).queryByRole("progressbar")).toBeNull();
  });
});
