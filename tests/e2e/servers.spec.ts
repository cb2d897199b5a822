// Several servers from the browser (issue 49), at a phone's and a desktop's width: adding a server on the
// Servers page, the overview as the home page once there are two (start and Save & Stop from its cards),
// the switcher keeping the page, and addresses that carry the server (/servers/2/saves, bookmarks, the
// back button). Server 2 is a second simulated Factorio folder, used where it is. Screenshots go to
// test-results/e2e/servers/.

import type { Page } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, killRecordedGame, test } from "./game-fixtures.ts";
import { adminApi, goTo, openSidebar, openSignedIn } from "./fixtures.ts";
import { createFakeSave, type FakeFactorio, installFakeFactorio } from "../fake-factorio/install.ts";
import { freeTcpPort, freeUdpPort } from "../fake-factorio/sim.ts";
import { SERVERS_MSG, SERVERS_UI } from "../../shared/servers.ts";

const SHOTS = "test-results/e2e/servers";

/** A second simulated Factorio folder with one save, for server 2. */
async function secondFolder(): Promise<FakeFactorio> {
  const f = installFakeFactorio(mkdtempSync(join(tmpdir(), "factorio-e2e-2-")), "2.0");
  await createFakeSave(f, "space.zip");
  return f;
}

/** Server 2's game, if it still runs after a test (server 1's is the fixture's). */
function killSecondGame(dataDir: string): void {
  killRecordedGame(join(dataDir, "servers", "2"));
}

/**
 * Names server 1 "Main" and adds server 2, "Space Age", from `folder` through the API (the Servers
 * page's own test adds one by clicking).
 */
async function addSecondServer(url: string, folder: string): Promise<{ id: number; port: number }> {
  const api = await adminApi(url);
  await api("PATCH", "/api/servers/1", { name: "Main" });
  const port = await freeUdpPort();
  const { id } = await api("POST", "/api/servers", {
    name: "Space Age",
    port,
    rcon_port: await freeTcpPort(),
    from: { folder },
  });
  return { id, port };
}

/** Chooses `name` in the switcher (the sidebar on a desktop, the bottom bar on a phone). */
async function switchTo(page: Page, name: string): Promise<void> {
  await page.getByTestId("server-switcher").first().click();
  await page.getByRole("menuitem", { name }).click();
}

for (
  const vp of [
    { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
  ]
) {
  test.describe(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}`, () => {
    test.use({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });

    test("adding a second server makes the overview the home page and shows the switcher", async ({ page }) => {
      const folder = await secondFolder();
      try {
        await openSignedIn(page, "/");
        // One server: home is Controls, no switcher.
        await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
        await expect(page.getByTestId("server-switcher")).toHaveCount(0);

        await goTo(page, "Servers");
        await expect(page.getByRole("heading", { name: SERVERS_UI.adminTitle, level: 1 })).toBeVisible();
        const form = page.getByRole("form", { name: SERVERS_UI.add });
        await form.getByLabel(SERVERS_UI.name).fill("Space Age");
        // Empty ports: the next free ones.
        await expect(form.getByLabel(SERVERS_UI.port)).toHaveValue("");
        await form.getByLabel(SERVERS_UI.source).click();
        await page.getByRole("option", { name: SERVERS_UI.sourceFolder }).click();
        await form.getByLabel(SERVERS_UI.folder).fill(folder.dir);
        await page.screenshot({ path: `${SHOTS}/${vp.name}-add.png`, fullPage: true });
        await form.getByRole("button", { name: SERVERS_UI.add }).click();
        await expect(page.getByTestId("flash").filter({ hasText: SERVERS_UI.added("Space Age") }))
          .toBeVisible();
        await expect(page.getByTestId("server-row-2")).toContainText("Space Age");

        // Two servers: home is the overview, one card each.
        await page.goto("/");
        await expect(page).toHaveURL(/\/servers$/);
        await expect(page.getByTestId("server-card-1")).toBeVisible();
        await expect(page.getByTestId("server-card-2")).toContainText("Space Age");
        await expect(page.getByTestId("server-card-2").getByTestId("card-state")).toHaveText("Stopped");
        await expect(page.getByTestId("server-switcher").first()).toBeVisible();
        await page.screenshot({ path: `${SHOTS}/${vp.name}-overview.png`, fullPage: true });
      } finally {
        rmSync(folder.dir, { recursive: true, force: true });
      }
    });

    test("the switcher keeps the page; addresses carry the server; the back button works", async ({ page, panel }) => {
      const folder = await secondFolder();
      try {
        const { id } = await addSecondServer(panel.url, folder.dir);
        expect(id).toBe(2);
        // A bookmark of server 2's Saves opens it, with its own save.
        await openSignedIn(page, "/servers/2/saves");
        await expect(page).toHaveURL(/\/servers\/2\/saves$/);
        await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toBeVisible();
        await expect(page.getByText("space.zip").first()).toBeVisible();
        await expect(page.getByText("world.zip")).toHaveCount(0);
        await expect(page.getByTestId("server-switcher").first()).toHaveAccessibleName(
          `${SERVERS_UI.switcherLabel}: Space Age`,
        );
        await page.screenshot({ path: `${SHOTS}/${vp.name}-saves-2.png`, fullPage: true });

        // The sidebar's links stay on server 2.
        await goTo(page, "Backups");
        await expect(page).toHaveURL(/\/servers\/2\/backups$/);

        // Switching keeps the page: server 1's Backups, at today's address.
        await switchTo(page, "Main");
        await expect(page).toHaveURL(/\/backups$/);
        await expect(page).not.toHaveURL(/\/servers\//);
        await goTo(page, "Saves");
        await expect(page).toHaveURL(/\/saves$/);
        await expect(page.getByText("world.zip").first()).toBeVisible();
        await expect(page.getByText("space.zip")).toHaveCount(0);

        // Back: server 1's Backups, then server 2's Backups, with server 2 shown again.
        await page.goBack();
        await expect(page).toHaveURL(/\/backups$/);
        await page.goBack();
        await expect(page).toHaveURL(/\/servers\/2\/backups$/);
        await expect(page.getByTestId("server-switcher").first()).toHaveAccessibleName(
          `${SERVERS_UI.switcherLabel}: Space Age`,
        );

        // Today's addresses are server 1's.
        await page.goto("/saves");
        await expect(page.getByText("world.zip").first()).toBeVisible();
        await expect(page.getByTestId("server-switcher").first()).toHaveAccessibleName(
          `${SERVERS_UI.switcherLabel}: Main`,
        );
        await openSidebar(page);
        await page.screenshot({ path: `${SHOTS}/${vp.name}-sidebar.png` });
      } finally {
        rmSync(folder.dir, { recursive: true, force: true });
      }
    });

    test("start and Save & Stop from the overview, each card live on its own", async ({ page, panel }) => {
      const folder = await secondFolder();
      try {
        const { port } = await addSecondServer(panel.url, folder.dir);
        await openSignedIn(page, "/");
        await expect(page).toHaveURL(/\/servers$/);
        const card = page.getByTestId("server-card-2");
        // Its first start, from its card: its own port (chosen when it was added) and the latest save.
        await card.getByRole("button", { name: SERVERS_UI.start }).click();
        await expect(card.getByTestId("card-state")).toHaveText("Running", { timeout: 30_000 });
        const status = await (await page.request.get(`${panel.url}/api/servers/2/server/status`)).json();
        expect(status.port).toBe(port);
        await page.goto("/servers/2");
        await expect(page.getByTestId("server-state")).toHaveText("Running");
        // The phone's bar has the shown server's badge beside the switcher; the sidebar's switcher has its dot.
        if (vp.name === "phone") await expect(page.getByTestId("status-badge").first()).toHaveText("Running");

        await page.goto("/servers");
        await expect(card.getByTestId("card-state")).toHaveText("Running");
        await expect(page.getByTestId("server-card-1").getByTestId("card-state")).toHaveText("Stopped");
        await expect(card.getByTestId("card-uptime")).not.toHaveText("-");
        await page.screenshot({ path: `${SHOTS}/${vp.name}-overview-running.png`, fullPage: true });

        await card.getByRole("button", { name: SERVERS_UI.saveAndStop }).click();
        await expect(card.getByTestId("card-state")).toHaveText("Stopped", { timeout: 30_000 });
        // Started again from its card, with its last start's settings.
        await card.getByRole("button", { name: SERVERS_UI.start }).click();
        await expect(card.getByTestId("card-state")).toHaveText("Running", { timeout: 30_000 });
        await card.getByRole("button", { name: SERVERS_UI.saveAndStop }).click();
        await expect(card.getByTestId("card-state")).toHaveText("Stopped", { timeout: 30_000 });
      } finally {
        killSecondGame(panel.dataDir);
        rmSync(folder.dir, { recursive: true, force: true });
      }
    });

    test("deleting a server: the dialog says a backup comes first; without one, the name must be typed", async ({ page, panel }) => {
      const folder = await secondFolder();
      try {
        await addSecondServer(panel.url, folder.dir);
        await openSignedIn(page, "/settings/servers");
        await expect(page.getByTestId("server-row-1")).not.toContainText(SERVERS_UI.remove);
        await page.getByRole("button", { name: `${SERVERS_UI.remove} Space Age` }).click();
        const dialog = page.getByRole("dialog", { name: SERVERS_UI.deleteTitle("Space Age") });
        await expect(dialog).toContainText(SERVERS_UI.deleteSays("Space Age"));
        await dialog.getByRole("button", { name: SERVERS_UI.deleteWithoutBackup }).click();
        const confirm = dialog.getByRole("button", { name: SERVERS_UI.deleteWithoutBackup });
        await expect(confirm).toBeDisabled();
        await dialog.getByLabel(SERVERS_UI.typeName).fill("Space Age");
        await page.screenshot({ path: `${SHOTS}/${vp.name}-delete.png` });
        await confirm.click();
        await expect(page.getByTestId("flash").filter({ hasText: SERVERS_MSG.deleted("Space Age") }))
          .toBeVisible();
        await expect(page.getByTestId("server-row-2")).toHaveCount(0);
        // One server again: home is Controls.
        await page.goto("/");
        await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
      } finally {
        killSecondGame(panel.dataDir);
        rmSync(folder.dir, { recursive: true, force: true });
      }
    });
  });
}
