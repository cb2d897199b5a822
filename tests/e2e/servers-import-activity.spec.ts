// Two pieces of several servers in the browser (issue 49), at a phone's and a desktop's width: the Servers
// page imports a server's archive made with `npm start -- --export FILE --export-server 1` (a damaged one
// is refused in the panel's words), and the Activity page names each record's server and filters by one.
// Screenshots go to test-results/e2e/servers-import-activity/.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "./game-fixtures.ts";
import { adminApi, goTo, openSignedIn } from "./fixtures.ts";
import { spawnPanel } from "../../scripts/launcher.mjs";
import { freeTcpPort, freeUdpPort } from "../fake-factorio/sim.ts";
import { SERVERS_UI } from "../../shared/servers.ts";

const SHOTS = "test-results/e2e/servers-import-activity";

/** `npm start -- --export FILE --export-server N` over a panel's data dir, beside the running panel. */
function exportServer(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawnPanel([...args, "--export-server", "1"], { stdio: "ignore" });
    child.on("exit", resolve);
  });
}

for (
  const vp of [
    { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
  ]
) {
  test.describe(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}`, () => {
    test.use({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });

    test("a server's archive uploaded on the Servers page becomes a new server in the list", async ({ page, panel, factorio }) => {
      const work = mkdtempSync(join(tmpdir(), "server-import-e2e-"));
      try {
        const api = await adminApi(panel.url);
        await api("PATCH", "/api/servers/1", { name: "Main" });
        const archive = join(work, "main.zip");
        expect(
          await exportServer([
            "--data-dir",
            panel.dataDir,
            "--factorio-dir",
            factorio.dir,
            "--export",
            archive,
          ]),
        ).toBe(0);
        const damaged = join(work, "damaged.zip");
        const bytes = readFileSync(archive);
        writeFileSync(damaged, bytes.subarray(0, bytes.length - 100));

        await openSignedIn(page, "/");
        await goTo(page, "Servers");
        const form = page.getByRole("form", { name: SERVERS_UI.importTitle });
        await form.scrollIntoViewIfNeeded();
        await expect(form).toBeVisible();
        await page.screenshot({ path: `${SHOTS}/${vp.name}-import.png`, fullPage: true });

        // A damaged archive: the panel's words in the form, no new server.
        await form.getByLabel(SERVERS_UI.importFile).setInputFiles(damaged);
        await form.getByRole("button", { name: SERVERS_UI.importButton }).click();
        await expect(form.getByRole("alert")).toContainText("The archive cannot be imported");
        await expect(form.getByRole("alert")).toContainText("Nothing was changed.");
        await expect(page.getByTestId("server-row-2")).toHaveCount(0);
        await page.screenshot({ path: `${SHOTS}/${vp.name}-import-refused.png`, fullPage: true });

        await form.getByLabel(SERVERS_UI.importFile).setInputFiles(archive);
        await expect(form.getByText("main.zip")).toBeVisible();
        await form.getByRole("button", { name: SERVERS_UI.importButton }).click();
        const lines = form.getByLabel(SERVERS_UI.imported);
        await expect(lines).toContainText(`is now server 2, "Main (2)"`, { timeout: 30_000 });
        await expect(form.getByRole("alert")).toHaveCount(0);
        // The list is read again: the new server is there, its name kept with " (2)" (taken here).
        const row = page.getByTestId("server-row-2");
        await expect(row).toContainText("Main (2)");
        await page.screenshot({ path: `${SHOTS}/${vp.name}-imported.png`, fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          vp.viewport.width,
        );
        const listed = await api("GET", "/api/servers");
        expect(listed.map((s: { name: string }) => s.name)).toEqual(["Main", "Main (2)"]);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });

    test("Activity names each record's server and filters by one", async ({ page, panel }) => {
      const api = await adminApi(panel.url);
      await api("PATCH", "/api/servers/1", { name: "Main" });
      const { id } = await api("POST", "/api/servers", {
        name: "Moon base",
        port: await freeUdpPort(),
        rcon_port: await freeTcpPort(),
        from: { server: 1 },
      });
      // An action on each server, through the API.
      await api("GET", `/api/servers/${id}/saves/create/moon-extra`);
      await api("GET", "/api/saves/create/main-extra");

      await openSignedIn(page, "/");
      await goTo(page, "Activity");
      await expect(page.getByRole("heading", { name: "Activity", level: 1 })).toBeVisible();
      const recorded = page.getByRole("region", { name: "Recorded" });
      await expect(recorded.getByText("main-extra").first()).toBeVisible();
      await expect(recorded.getByText("moon-extra").first()).toBeVisible();
      await page.screenshot({ path: `${SHOTS}/${vp.name}-activity.png`, fullPage: true });

      const filter = page.getByRole("form", { name: "Filter activity" });
      await filter.getByRole("combobox", { name: "Server" }).click();
      await page.getByRole("option", { name: "Moon base" }).click();
      await filter.getByRole("button", { name: "Apply" }).click();
      await expect(recorded.getByText("main-extra")).toHaveCount(0);
      await expect(recorded.getByText("moon-extra").first()).toBeVisible();
      // Each record shown names server 2.
      const names = vp.name === "desktop"
        ? recorded.getByRole("row").filter({ hasText: "moon-extra" }).getByRole("cell").nth(1)
        : recorded.getByRole("listitem").filter({ hasText: "moon-extra" }).getByText(/^Server: /);
      await expect(names.first()).toHaveText(vp.name === "desktop" ? "Moon base" : "Server: Moon base");
      await page.screenshot({ path: `${SHOTS}/${vp.name}-activity-server-2.png`, fullPage: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        vp.viewport.width,
      );
    });
  });
}
