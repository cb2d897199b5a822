// The game server from the browser, on a simulated Factorio: start from the Controls page, the console
// with command replies and history, save & stop, kill with confirmation, a crash shown with its reason,
// the logs page, and the live status badge.

import { expect, test } from "./game-fixtures.ts";
import { goTo, openSignedIn } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";

async function startFromControls(page: Page, port: number): Promise<void> {
  const form = page.getByRole("form", { name: "Start Server" });
  await form.getByLabel("IP").fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(port));
  await form.getByRole("button", { name: "Start Server" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: `started on port: ${port}` })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByTestId("server-state")).toHaveText("Running");
}

test("start from Controls, console command and reply, save & stop, kill", async ({ page, gamePort }) => {
  await openSignedIn(page, "/");
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
  await expect(page.getByTestId("server-state")).toHaveText("Stopped");
  await expect(page.getByTestId("status-badge")).toHaveText("Stopped");
  await expect(page.getByTestId("server-version")).toHaveText("2.0.72");

  // The spec's defaults and validation messages.
  const form = page.getByRole("form", { name: "Start Server" });
  await expect(form.getByLabel("IP")).toHaveValue("0.0.0.0");
  await expect(form.getByLabel("Port")).toHaveValue("34197");
  await expect(form.getByRole("combobox")).toHaveText("Load Latest");
  await form.getByLabel("IP").fill("300.1.2.3");
  await form.getByLabel("Port").fill("0");
  await form.getByRole("button", { name: "Start Server" }).click();
  await expect(form.getByText(MSG.ipInvalid)).toBeVisible();
  await expect(form.getByText(MSG.portRequired)).toBeVisible();
  await expect(page.getByTestId("server-state")).toHaveText("Stopped");

  await startFromControls(page, gamePort);
  await expect(page.getByTestId("status-badge")).toHaveText("Running");
  await expect(page.getByTestId("server-port")).toHaveText(String(gamePort));
  await expect(page.getByTestId("server-address")).toHaveText("127.0.0.1");
  await expect(page.getByTestId("server-save")).toHaveText("world.zip");

  // The console: recent lines, a command and its reply, history on the arrow keys.
  await goTo(page, "Console");
  const log = page.getByRole("log", { name: "Game log" });
  await expect(log).toContainText("Hosting game at IP ADDR");
  const input = page.getByLabel("Command");
  await input.fill("/fake-join alice");
  await input.press("Enter");
  await expect(input).toHaveValue("");
  await expect(log).toContainText("[JOIN] alice joined the game");
  await input.fill("/players");
  await input.press("Enter");
  await expect(log).toContainText("admin> /players");
  await expect(log.getByText("alice (online)", { exact: true })).toBeVisible();
  await input.press("ArrowUp");
  await expect(input).toHaveValue("/players");
  await input.press("ArrowUp");
  await expect(input).toHaveValue("/fake-join alice");
  await input.press("ArrowDown");
  await expect(input).toHaveValue("/players");
  await input.press("ArrowDown");
  await expect(input).toHaveValue("");

  // Save & Stop.
  await goTo(page, "Controls");
  await page.getByRole("button", { name: "Save & Stop Server" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.serverStopped })).toBeVisible();
  await expect(page.getByTestId("server-state")).toHaveText("Stopped");
  await expect(page.getByTestId("status-badge")).toHaveText("Stopped");

  // Kill asks first; Cancel keeps the game.
  await startFromControls(page, gamePort);
  await page.getByRole("button", { name: "Kill Server" }).click();
  const dialog = page.getByRole("dialog", { name: "Kill Server" });
  await expect(dialog).toContainText(PANEL_MSG.killConfirm);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("server-state")).toHaveText("Running");
  await page.getByRole("button", { name: "Kill Server" }).click();
  await page.getByRole("dialog", { name: "Kill Server" }).getByRole("button", { name: "Kill Server" })
    .click();
  await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.serverKilled })).toBeVisible();
  await expect(page.getByTestId("server-state")).toHaveText("Stopped");

  // With the game stopped, the console says so.
  await goTo(page, "Console");
  await expect(page.getByText(MSG.consoleUnavailable)).toBeVisible();
  await expect(page.getByLabel("Command")).toHaveCount(0);
});

test("a crash shows on Controls with its exit code and last lines; the badge follows live", async ({ page, gamePort, browser, panel }) => {
  await openSignedIn(page, "/");
  const form = page.getByRole("form", { name: "Start Server" });
  await expect(form).toHaveAttribute("data-saves-loaded", "true");
  await form.getByRole("combobox").click();
  await page.getByRole("option", { name: "world.zip" }).click();
  await startFromControls(page, gamePort);
  await goTo(page, "Console");
  const input = page.getByLabel("Command");
  await input.fill("/fake-crash 3");
  await input.press("Enter");
  // The console turns unavailable by itself when the status push arrives.
  await expect(page.getByText(MSG.consoleUnavailable)).toBeVisible();
  await expect(page.getByTestId("status-badge")).toHaveText("Stopped");
  await goTo(page, "Controls");
  const crash = page.getByRole("region", { name: "Last crash" });
  await expect(crash).toContainText("The server stopped unexpectedly");
  await expect(crash).toContainText("exit code 3");
  await expect(crash.getByLabel("Last lines of the crashed server")).toContainText("Factorio crashed");

  // Another device, which never started anything, offers what ran: the panel kept it, not the browser.
  const other = await browser.newContext({ baseURL: panel.url, viewport: { width: 390, height: 844 } });
  try {
    const phone = await other.newPage();
    await openSignedIn(phone, "/");
    const again = phone.getByRole("form", { name: "Start Server" });
    await expect(again.getByLabel("IP")).toHaveValue("127.0.0.1");
    await expect(again.getByLabel("Port")).toHaveValue(String(gamePort));
    await expect(again.getByRole("combobox")).toHaveText("world.zip");
  } finally {
    await other.close();
  }

  await goTo(page, "Logs");
  const logs = page.getByRole("log", { name: "Factorio log" });
  await expect(logs).toContainText("Hosting game at IP ADDR");
  await expect(logs).toContainText("Received SIGSEGV");
  // The RCON password is never shown.
  await expect(logs).toContainText('"--rcon-password" "********"');
});

test.describe("without any save", () => {
  test.use({ gameSaves: [] });

  test("starting is refused with the spec's flash, and nothing starts", async ({ page }) => {
    await openSignedIn(page, "/");
    await page.getByRole("form", { name: "Start Server" }).getByRole("button", { name: "Start Server" })
      .click();
    await expect(page.getByTestId("flash").filter({ hasText: MSG.saveMustBeCreated })).toBeVisible();
    await expect(page.getByTestId("server-state")).toHaveText("Stopped");
    await goTo(page, "Logs");
    await expect(page.getByText("The log is empty: the game has not run yet.")).toBeVisible();
  });
});

for (
  const [name, viewport] of [["phone", { width: 390, height: 844 }], ["desktop", {
    width: 1280,
    height: 800,
  }]] as const
) {
  test.describe(`screens on a ${name}`, () => {
    test.use({ viewport });

    test(`Controls, Console and Logs on a ${name}`, async ({ page, gamePort }, testInfo) => {
      const shot = (what: string) =>
        page.screenshot({ path: testInfo.outputPath(`${name}-${what}.png`), fullPage: true });
      await openSignedIn(page, "/");
      await expect(page.getByTestId("server-version")).toHaveText("2.0.72");
      await shot("controls-stopped");
      await startFromControls(page, gamePort);
      await shot("controls-running");
      await goTo(page, "Console");
      const input = page.getByLabel("Command");
      for (
        const c of [
          "/fake-join alice bob",
          "/fake-chat alice hello everyone",
          "/players",
          "/time",
          "/fake-crash 3",
        ]
      ) {
        await input.fill(c);
        await input.press("Enter");
        if (c !== "/fake-crash 3") {
          await expect(page.getByRole("log", { name: "Game log" })).toContainText(`admin> ${c}`);
        }
      }
      await expect(page.getByText(MSG.consoleUnavailable)).toBeVisible();
      await startFromControlsAgain(page, gamePort);
      await goTo(page, "Console");
      await expect(page.getByRole("log", { name: "Game log" })).toContainText("Hosting game at");
      await shot("console");
      await goTo(page, "Controls");
      // Running again: the last crash is history, no longer shown beside the running server.
      await expect(page.getByTestId("server-state")).toHaveText("Running");
      await expect(page.getByRole("region", { name: "Last crash" })).toHaveCount(0);
      await shot("controls-after-crash");
      await goTo(page, "Logs");
      await expect(page.getByRole("log", { name: "Factorio log" })).toContainText("Hosting game at");
      await shot("logs");
    });
  });
}

async function startFromControlsAgain(page: Page, port: number): Promise<void> {
  await goTo(page, "Controls");
  await startFromControls(page, port);
}
