// The Logs page on a running simulator, at 390x844 and 1280x800: the log's tail, then new lines as the game
// writes them without a reload (typed in the Console of another tab), a search, a filter by level (a crash
// brings Error lines into a view of errors only), and Download, which the server streams: the game's whole
// factorio-current.log with the RCON password masked. Screenshots go to test-results/e2e/logs/.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./game-fixtures.ts";
import { openSignedIn } from "./fixtures.ts";

const SHOTS = "test-results/e2e/logs";

/** Types a console command in the Console page of `tab`, as a user does. */
async function command(tab: Page, text: string) {
  await tab.getByRole("textbox", { name: "Command" }).fill(text);
  await tab.getByRole("button", { name: "Send" }).click();
  await expect(tab.getByRole("log", { name: "Game log" })).toContainText(`admin> ${text}`);
}

for (
  const vp of [
    { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
  ]
) {
  test.describe(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}`, () => {
    test.use({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });

    test("the log is live, searchable, filtered by level, and downloads whole", async ({ page, context, gamePort, panel, factorio }) => {
      await openSignedIn(page, "/");
      const started = await page.request.post("/api/server/start", {
        data: { bindip: "127.0.0.1", port: gamePort, savefile: "Load Latest" },
      });
      expect(started.status()).toBe(200);
      await page.goto("/logs");
      const log = page.getByRole("log", { name: "Factorio log" });
      await expect(log).toContainText("Hosting game at IP ADDR");
      await expect(log.getByText(/Hosting game at IP ADDR/)).toHaveCount(1);

      // Another tab types in the Console; this one shows it without a reload.
      const consoleTab = await context.newPage();
      await consoleTab.goto("/console");
      await command(consoleTab, "/fake-join alice");
      await expect(log).toContainText("Player alice joined the game");
      await expect(log).toContainText("[JOIN] alice joined the game");
      await expect(log).toContainText("admin> /fake-join alice");
      await expect(log.getByText(/Hosting game at IP ADDR/)).toHaveCount(1);

      // Search: only the lines that name alice, the match marked.
      const search = page.getByRole("searchbox", { name: "Search" });
      await search.fill("alice");
      await expect(page.getByTestId("logs-count")).toHaveText(/^\d+ of \d+ lines$/);
      for (const text of await log.locator("div").allTextContents()) {
        expect(text.toLowerCase()).toContain("alice");
      }
      await expect(log.locator("mark").first()).toHaveText("alice");
      await page.screenshot({ path: `${SHOTS}/${vp.name}-search.png` });
      await search.fill("");

      // Errors only: none yet; a crash brings its Error lines in as they are written.
      for (const level of ["Info", "Warning", "Panel"]) {
        await page.getByRole("checkbox", { name: new RegExp(`^${level} \\(`) }).uncheck();
      }
      await expect(log).toHaveText("No line matches.");
      // The crash ends the game, and the Console then shows that instead of its log: no echo to wait for.
      await consoleTab.getByRole("textbox", { name: "Command" }).fill("/fake-crash");
      await consoleTab.getByRole("button", { name: "Send" }).click();
      await expect(log).toContainText("Error Util.cpp:83: Received SIGSEGV");
      await expect(log).not.toContainText("Hosting game");
      await expect(page.getByRole("checkbox", { name: /^Error \(\d+\)$/ })).toBeChecked();
      await page.screenshot({ path: `${SHOTS}/${vp.name}-errors.png` });
      for (const level of ["Info", "Warning", "Panel"]) {
        await page.getByRole("checkbox", { name: new RegExp(`^${level} \\(`) }).check();
      }
      await expect(log).toContainText("Hosting game at IP ADDR");
      await page.screenshot({ path: `${SHOTS}/${vp.name}-all.png` });

      // Download: the server's file, whole, with the RCON password masked.
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download" }).click(),
      ]);
      expect(new URL(download.url()).pathname).toBe("/api/log/download");
      expect(download.suggestedFilename()).toBe("factorio-current.log");
      const got = readFileSync(await download.path(), "utf8");
      const { password } = JSON.parse(readFileSync(join(panel.dataDir, "rcon.json"), "utf8"));
      const onDisk = readFileSync(join(factorio.dir, "factorio-current.log"), "utf8");
      expect(onDisk).toContain(password);
      expect(got).toBe(onDisk.replaceAll(password, "********"));
      expect(got).toContain("Received SIGSEGV");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });
  });
}
