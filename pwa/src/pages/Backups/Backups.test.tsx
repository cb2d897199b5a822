import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import Backups from "./Backups.tsx";
import { server } from "../../state/server.ts";
import type { ServerStatus } from "../../../../shared/api.ts";
import { type Backup, DEFAULT_BACKUP_SETTINGS } from "../../../../shared/backups.ts";

configure({ asyncUtilTimeout: 10_000 });
// The first render loads MUI and the icons: slow on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

const BACKUP: Backup = {
  id: "2026-11-22_11-05-00_schedule_world",
  created: "2026-11-22T11:05:00.000Z",
  reason: "schedule",
  save: "world.zip",
  size: 2_097_152,
  sha256: "ab".repeat(32),
  locked: false,
  game_version: "2.0.72",
  includes: ["mods"],
  mods: [],
};

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

let posts: { path: string; body: unknown }[];

beforeEach(() => {
  posts = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const path = String(url);
      if (init?.method === "POST") {
        posts.push({ path, body: JSON.parse(String(init.body)) });
        if (path.endsWith("/restore")) {
          return json({ message: "Restored save x.zip from backup.", save: "x.zip" });
        }
        if (path === "/api/backups/settings") {
          return json({ ...DEFAULT_BACKUP_SETTINGS, ...JSON.parse(String(init.body)) });
        }
        return json(BACKUP);
      }
      if (path === "/api/backups/settings") {
        return json({ ...DEFAULT_BACKUP_SETTINGS, include: ["settings"] });
      }
      return json([BACKUP]);
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  server.status = null;
});

function running() {
  server.status = { status: "running", savefile: "world.zip" } as ServerStatus;
}

describe("Backups page", () => {
  it("lists backups and remembers the include checkboxes", async () => {
    render(<Backups />);
    const row = await screen.findByTestId("backup-row");
    expect(row.textContent).toContain("Schedule");
    expect(row.textContent).toContain("world.zip");
    await waitFor(() =>
      expect((screen.getByLabelText("Server settings") as HTMLInputElement).checked).toBe(true)
    );
    fireEvent.click(screen.getByRole("button", { name: "Back up now" }));
    await waitFor(() =>
      expect(posts).toContainEqual({ path: "/api/backups", body: { include: ["settings"] } })
    );
  });

  it("retention: a reason can have its own rule", async () => {
    render(<Backups />);
    await waitFor(() =>
      expect((screen.getByLabelText("All reasons: keep the last") as HTMLInputElement).value).toBe("20")
    );
    fireEvent.click(screen.getByLabelText('Own rule for "Schedule"'));
    fireEvent.change(screen.getByLabelText("Schedule: keep the last"), { target: { value: "48" } });
    fireEvent.change(screen.getByLabelText("Schedule: keep days"), { target: { value: "2" } });
    fireEvent.click(screen.getByRole("button", { name: "Save retention" }));
    await waitFor(() =>
      expect(posts).toContainEqual({
        path: "/api/backups/settings",
        body: {
          retention: { keep_last: 20, keep_days: null },
          by_reason: { schedule: { keep_last: 48, keep_days: 2 } },
          min_free_mb: 1024,
        },
      })
    );
  });

  it("restores into a new save by default, and nothing else unless asked", async () => {
    render(<Backups />);
    fireEvent.click(await screen.findByRole("button", { name: `Restore ${BACKUP.id}` }));
    const dialog = await screen.findByRole("dialog", { name: "Restore backup" });
    expect((within(dialog).getByLabelText("New save name") as HTMLInputElement).value).toBe(
      "world-restored-2026-11-22-1105.zip",
    );
    const files = within(dialog).getByLabelText(/^Also restore the whole mods folder/) as HTMLInputElement;
    expect(files.checked).toBe(false);
    expect(within(dialog).getByTestId("restore-summary").textContent).toBe(
      "Writes the new save world-restored-2026-11-22-1105.zip. Nothing else changes.",
    );
    fireEvent.click(within(dialog).getByRole("button", { name: "Restore" }));
    await waitFor(() =>
      expect(posts).toContainEqual({
        path: `/api/backups/${BACKUP.id}/restore`,
        body: { as: "world-restored-2026-11-22-1105.zip", files: false },
      })
    );
  });

  it('names what ticking "Also restore" replaces, and sends it', async () => {
    render(<Backups />);
    fireEvent.click(await screen.findByRole("button", { name: `Restore ${BACKUP.id}` }));
    const dialog = await screen.findByRole("dialog", { name: "Restore backup" });
    fireEvent.click(within(dialog).getByLabelText(/^Also restore the whole mods folder/));
    expect(within(dialog).getByTestId("restore-summary").textContent).toBe(
      "Writes the new save world-restored-2026-11-22-1105.zip and replaces the whole mods folder (every mod, " +
        "mod-list.json, mod-settings.dat). It is backed up first.",
    );
    fireEvent.click(within(dialog).getByRole("button", { name: "Restore" }));
    await waitFor(() =>
      expect(posts).toContainEqual({
        path: `/api/backups/${BACKUP.id}/restore`,
        body: { as: "world-restored-2026-11-22-1105.zip", files: true },
      })
    );
  });

  it('while the server runs, a restore that needs it stopped waits for "Stop, restore, start"', async () => {
    running();
    render(<Backups />);
    fireEvent.click(await screen.findByRole("button", { name: `Restore ${BACKUP.id}` }));
    const dialog = await screen.findByRole("dialog", { name: "Restore backup" });
    fireEvent.click(within(dialog).getByLabelText(/Over world\.zip/));
    expect(within(dialog).getByTestId("restore-summary").textContent).toBe(
      "Replaces world.zip. It is backed up first.",
    );
    const restore = within(dialog).getByRole("button", { name: "Restore" }) as HTMLButtonElement;
    expect(restore.disabled).toBe(true);
    fireEvent.click(within(dialog).getByLabelText("Stop, restore, start"));
    expect(restore.disabled).toBe(false);
    fireEvent.click(restore);
    await waitFor(() =>
      expect(posts).toContainEqual({
        path: `/api/backups/${BACKUP.id}/restore`,
        body: { replace: true, files: false, restart: true },
      })
    );
  });
});
