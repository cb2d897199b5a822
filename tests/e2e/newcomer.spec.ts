// A newcomer's first hour, at phone (390x844) and desktop (1280x800) widths: every page passes axe-core
// with no serious or critical violation, touch targets on a phone are at least 44 px, the phone's menu
// sits in thumb reach with one title, and the flows a new admin trips over (Controls, Console, Users,
// Server Settings, Saves) behave. Screenshots go to test-results/e2e/newcomer/.

import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./game-fixtures.ts";
import { openSignedIn, signIn, startPanelProcess } from "./fixtures.ts";
import { holdUdpPort } from "../fake-factorio/sim.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

const PAGES: [string, string][] = [
  ["/", "Controls"],
  ["/console", "Console"],
  ["/logs", "Logs"],
  ["/server-settings", "Server Settings"],
  ["/saves", "Saves"],
  ["/mods", "Mods"],
  ["/game-settings", "Game Settings"],
  ["/backups", "Backups"],
  ["/schedules", "Schedules"],
  ["/players", "Players"],
  ["/players/history", "Player history"],
  ["/user-management", "Users"],
  ["/activity", "Activity"],
  ["/settings/https", "HTTPS"],
  ["/account", "Account"],
  ["/notifications", "Notifications"],
  ["/help", "Help"],
];

const VIEWPORTS = [
  { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
] as const;

const SHOTS = "test-results/e2e/newcomer";

/** axe-core's WCAG 2.x A/AA rules; only serious and critical findings fail. */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) =>
      `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`
    );
}

/** Visible controls smaller than 44x44 px (inline text links excepted, as WCAG 2.5.8 does). */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>(
      "main button, main a[href], main input:not([type=hidden]), main [role=combobox], main [role=tab], header button, .MuiAppBar-root button",
    );
    for (const el of controls) {
      const target =
        el.closest<HTMLElement>(".MuiInputBase-root, .MuiButtonBase-root, .MuiSwitch-switchBase") ?? el;
      const style = getComputedStyle(target);
      if (style.display === "inline" || style.visibility === "hidden") continue;
      const r = target.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.width < 43.5 || r.height < 43.5) {
        found.push(
          `${el.tagName.toLowerCase()} "${
            el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 30)
          }" ${Math.round(r.width)}x${Math.round(r.height)}`,
        );
      }
    }
    return found;
  });
}

async function visit(page: Page, path: string, title: string): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole("heading", { name: title, level: 1 })).toBeVisible({ timeout: 30_000 });
  // Lazy content (lists, forms) settles before it is checked.
  await page.waitForLoadState("networkidle");
}

for (const vp of VIEWPORTS) {
  test.describe(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}`, () => {
    test.use({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });

    test("every page: no serious or critical axe violation; 44 px touch targets on a phone", async ({ page, gamePort }) => {
      test.setTimeout(600_000);
      await page.goto("/login");
      expect(await seriousViolations(page), "login").toEqual([]);
      await openSignedIn(page, "/");
      const problems: Record<string, string[]> = {};
      const small: Record<string, string[]> = {};
      const check = async (label: string) => {
        const found = await seriousViolations(page);
        if (found.length) problems[label] = found;
        if (vp.name === "phone") {
          const tiny = await smallTargets(page);
          if (tiny.length) small[label] = tiny;
        }
        await page.screenshot({
          path: `${SHOTS}/${vp.name}-${label.replaceAll(/\W+/g, "-")}.png`,
          fullPage: true,
        });
      };
      for (const [path, title] of PAGES) {
        await visit(page, path, title);
        await check(title);
      }
      // The running game: Controls with its buttons, the Console with the log and the command line.
      const started = await page.request.post("/api/server/start", {
        data: { bindip: "127.0.0.1", port: gamePort, savefile: "Load Latest" },
      });
      expect(started.status()).toBe(200);
      await visit(page, "/", "Controls");
      await expect(page.getByTestId("server-state")).toHaveText("Running");
      await check("Controls running");
      await page.getByRole("button", { name: "Kill Server" }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
      // The safe choice has the focus.
      await expect(page.getByRole("dialog").getByRole("button", { name: "Cancel" })).toBeFocused();
      // The dialog fades in: checked mid-fade, axe reads its buttons' colours blended with the page behind
      // (a contrast failure seen once in CI on a loaded machine). Checked once it is fully opaque.
      await expect(page.locator(".MuiDialog-container")).toHaveCSS("opacity", "1");
      await check("Kill dialog");
      await page.keyboard.press("Escape");
      await visit(page, "/console", "Console");
      await expect(page.getByRole("log", { name: "Game log" })).toContainText("Hosting game");
      await check("Console running");
      expect(problems).toEqual({});
      expect(small).toEqual({});
    });
  });
}

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the menu toggle is in thumb reach, the title shows once, the sidebar is grouped", async ({ page }) => {
    await openSignedIn(page, "/saves");
    await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toBeVisible();
    const toggle = page.getByRole("button", { name: "Open menu" });
    const box = (await toggle.boundingBox())!;
    expect(box.y, "in the bottom bar").toBeGreaterThan(844 - 80);
    expect(box.x, "at the right, under the thumb").toBeGreaterThan(390 / 2);
    expect(box.width).toBeGreaterThanOrEqual(44);
    // One title: the page's heading; the bottom bar does not repeat it.
    await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toHaveCount(1);
    await expect(page.locator(".MuiAppBar-root")).not.toContainText("Saves");
    await toggle.click();
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const group of ["Server", "World", "Players", "Panel"]) {
      await expect(nav.getByRole("group", { name: group })).toBeVisible();
    }
    await expect(nav.getByRole("group", { name: "World" }).getByRole("link", { name: "Saves" }))
      .toBeVisible();
    await page.screenshot({ path: `${SHOTS}/phone-menu-open.png` });
  });

  test("Saves is a card list with its actions in view", async ({ page }) => {
    await openSignedIn(page, "/saves");
    const list = page.getByRole("list", { name: "Saves" });
    const del = list.getByRole("button", { name: "Delete world.zip" });
    await expect(del).toBeVisible();
    const b = (await del.boundingBox())!;
    expect(b.x + b.width).toBeLessThanOrEqual(390);
    expect(b.height).toBeGreaterThanOrEqual(44);
  });

  test("the console follows new output, has Send, and names no arrow keys", async ({ page, gamePort }) => {
    await openSignedIn(page, "/");
    expect(
      (await page.request.post("/api/server/start", {
        data: { bindip: "127.0.0.1", port: gamePort, savefile: "Load Latest" },
      })).status(),
    ).toBe(200);
    await page.goto("/console");
    const log = page.getByRole("log", { name: "Game log" });
    await expect(log).toContainText("Hosting game");
    await expect(page.getByText(/arrow/)).toHaveCount(0);
    await page.getByRole("textbox", { name: "Command" }).fill("/fake-flood 400 80");
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.getByRole("textbox", { name: "Command" })).toHaveValue("");
    await expect(log).toContainText("bench: 399 ", { timeout: 30_000 });
    // The newest line is in view: the log kept following while 400 lines arrived.
    const gap = await log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    expect(gap).toBeLessThan(4);
    await expect(log.getByText(/bench: 399 /)).toBeInViewport();
    await page.screenshot({ path: `${SHOTS}/phone-console-following.png` });
  });
});

test("Controls: the start form keeps its values after a failed start and a stop; crash card gone once running; uptime and players", async ({ page, gamePort, panel }) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/");
  const form = page.getByRole("form", { name: "Start Server" });
  await form.getByLabel("IP").fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(gamePort));

  // A taken port: the game fails to start.
  const blocker = await holdUdpPort(gamePort, "127.0.0.1");
  try {
    await form.getByRole("button", { name: "Start Server" }).click();
    await expect(page.getByTestId("server-state")).toHaveText("Stopped", { timeout: 30_000 });
    await expect(form.getByLabel("IP")).toHaveValue("127.0.0.1");
    await expect(form.getByLabel("Port")).toHaveValue(String(gamePort));
    // A failed start is not a crash: its own card, with the game's last lines.
    await expect(page.getByRole("region", { name: "Last start failed" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Last crash" })).toHaveCount(0);
  } finally {
    blocker.close();
  }
  await page.screenshot({ path: `${SHOTS}/desktop-failed-start.png`, fullPage: true });

  await form.getByRole("button", { name: "Start Server" }).click();
  await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 30_000 });
  await expect(page.getByTestId("status-badge")).toHaveText("Running");
  await expect(page.getByRole("region", { name: /Last crash|Last start failed/ })).toHaveCount(0);
  await expect(page.getByTestId("server-uptime")).toHaveText(/less than a minute|\d+ min/);
  await expect(page.getByTestId("server-players")).toHaveText("none");

  // Restart asks first (Cancel focused), then saves, stops and starts the same save again.
  await page.getByRole("button", { name: "Restart Server" }).click();
  const restart = page.getByRole("dialog", { name: "Restart Server" });
  await expect(restart).toContainText(PANEL_MSG.restartConfirm);
  await expect(restart.getByRole("button", { name: "Cancel" })).toBeFocused();
  await restart.getByRole("button", { name: "Restart Server" }).click();
  await expect(page.getByTestId("flash").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 60_000 });
  await expect(page.getByTestId("server-save")).toHaveText("world.zip");
  await page.screenshot({ path: `${SHOTS}/desktop-running.png`, fullPage: true });

  // Save & stop: the badge says Stopping on the way, and the form comes back with the same values.
  await page.getByRole("button", { name: "Save & Stop Server" }).click();
  await expect(page.getByTestId("server-state")).toHaveText("Stopped", { timeout: 30_000 });
  await expect(form.getByLabel("IP")).toHaveValue("127.0.0.1");
  await expect(form.getByLabel("Port")).toHaveValue(String(gamePort));
  await expect(form.getByRole("combobox")).toHaveText("Load Latest");

  // The panel stops answering: the badge and the card show the last known status, not "Unknown".
  panel.child.kill("SIGTERM");
  await expect(page.getByTestId("offline-banner")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("status-badge")).toHaveText("Stopped");
  await expect(page.getByTestId("server-state")).toContainText("Stopped");
  await expect(page.getByTestId("server-state")).toContainText("last known");
  await page.screenshot({ path: `${SHOTS}/desktop-offline.png`, fullPage: true });
});

test("Users: the own account cannot be deleted, passwords need 10 characters", async ({ page }) => {
  await openSignedIn(page, "/user-management");
  await expect(page.getByRole("button", { name: /Delete user admin/ })).toBeDisabled();
  const create = page.getByRole("form", { name: "Create User" });
  await expect(create.getByText(PANEL_MSG.passwordRule)).toBeVisible();
  await create.getByLabel("Username").fill("bob");
  await create.getByLabel("Email").fill("bob@example.org");
  await create.getByLabel("Password", { exact: true }).fill("short");
  await create.getByLabel("Password Confirmation").fill("short");
  await create.getByRole("button", { name: "Create User" }).click();
  await expect(create.getByText(PANEL_MSG.passwordTooShort)).toBeVisible();
  await create.getByLabel("Password", { exact: true }).fill("a long enough one");
  await create.getByLabel("Password Confirmation").fill("a long enough one");
  await create.getByRole("button", { name: "Create User" }).click();
  await expect(page.getByRole("table", { name: "Users" })).toContainText("bob");
  // Deleting another user asks first, and Cancel has the focus.
  await page.getByRole("button", { name: "Delete user bob" }).click();
  await expect(page.getByRole("dialog").getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("table", { name: "Users" })).not.toContainText("bob");
});

test.describe("Server Settings on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the Save bar stays in view, and leaving with unsaved edits asks first", async ({ page }) => {
    await openSignedIn(page, "/server-settings");
    const bar = page.getByTestId("save-bar");
    await expect(bar).toBeInViewport();
    await expect(bar).toContainText("No changes");
    await page.getByLabel("name", { exact: true }).fill("My changed server");
    await expect(bar).toContainText("Unsaved changes");
    await page.mouse.wheel(0, 2000);
    await expect(bar.getByRole("button", { name: "Save" })).toBeInViewport();
    await page.screenshot({ path: `${SHOTS}/phone-settings-save-bar.png` });

    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("link", { name: "Help" }).click();
    const dialog = page.getByRole("dialog", { name: "Unsaved changes" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Stay" })).toBeFocused();
    await dialog.getByRole("button", { name: "Stay" }).click();
    await expect(page.getByRole("heading", { name: "Server Settings", level: 1 })).toBeVisible();
    await expect(page.getByLabel("name", { exact: true })).toHaveValue("My changed server");

    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("link", { name: "Help" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Leave without saving" }).click();
    await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
  });
});

test("Saves: uploading over an existing name asks first", async ({ page, factorio }) => {
  const { readFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const bytes = readFileSync(join(factorio.dir, "saves", "world.zip"));
  await openSignedIn(page, "/saves");
  const upload = page.getByRole("form", { name: "Upload Save" });
  await upload.getByLabel("Savefile").setInputFiles({
    name: "world.zip",
    mimeType: "application/zip",
    buffer: bytes,
  });
  await upload.getByRole("button", { name: "Upload" }).click();
  const dialog = page.getByRole("dialog", { name: "Replace save" });
  await expect(dialog).toContainText(PANEL_MSG.replaceSaveConfirm("world.zip"));
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("flash")).toHaveCount(0);
  await upload.getByRole("button", { name: "Upload" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Replace" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "world.zip" })).toBeVisible();
});

test("after the first sign-in with the generated password, the panel asks to change it", async ({ page }) => {
  const { readFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const own = await startPanelProcess({ env: { PANEL_ADMIN_PASSWORD: "" } });
  try {
    const password = readFileSync(join(own.dataDir, "initial-admin-password"), "utf8").trim();
    await page.goto(`${own.url}/`);
    await signIn(page, "admin", password);
    const prompt = page.getByTestId("generated-password");
    await expect(prompt).toContainText(PANEL_MSG.generatedPassword);
    await page.screenshot({ path: `${SHOTS}/desktop-generated-password.png`, fullPage: true });
    await prompt.getByRole("link", { name: "Change password" }).click();
    const form = page.getByRole("form", { name: "Change Password" });
    await expect(form.getByLabel("Old Password")).toBeFocused();
    await form.getByLabel("Old Password").fill(password);
    await form.getByLabel("New Password", { exact: true }).fill("my own password");
    await form.getByLabel("New Password Confirmation").fill("my own password");
    await form.getByRole("button", { name: "Change Password" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: "Password changed" })).toBeVisible();
    await expect(prompt).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("generated-password")).toHaveCount(0);
  } finally {
    await own.stop();
  }
});

test("no Factorio in the directory: start-up and Controls say so, naming the directory and what to do", async ({ page }) => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const empty = mkdtempSync(join(tmpdir(), "no-factorio-"));
  const own = await startPanelProcess({ args: ["--factorio-dir", empty] });
  try {
    await expect.poll(() => own.output()).toContain(`No Factorio found in ${empty}`);
    expect(own.output()).toContain("Phones need HTTPS");
    await page.goto(`${own.url}/`);
    await signIn(page);
    const note = page.getByTestId("no-factorio");
    await expect(note).toContainText(`No Factorio found in ${empty}`, { timeout: 30_000 });
    await expect(note).toContainText("factorio.com/download");
    await expect(page.getByRole("button", { name: "Start Server" })).toBeDisabled();
    for (
      const [name, viewport] of [["desktop", { width: 1280, height: 800 }], ["phone", {
        width: 390,
        height: 844,
      }]] as const
    ) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: `${SHOTS}/${name}-no-factorio.png`, fullPage: true });
    }
  } finally {
    await own.stop();
    rmSync(empty, { recursive: true, force: true });
  }
});
