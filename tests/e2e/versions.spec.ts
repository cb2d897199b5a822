// The game itself from an empty panel, through the launcher (as `npm start` runs it) and Chromium: install
// stable from the fake factorio.com (its own process), create a save and start it, update to a newer
// version while it runs (the players are warned in the console log), then update to a version that
// cannot start, which the panel rolls back by itself.

// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  adminApi,
  expect,
  goTo,
  openSignedIn,
  type PanelProcess,
  ROOT,
  signIn,
  startPanelProcess,
  test as base,
} from "./fixtures.ts";
import { killRecordedGame } from "./game-fixtures.ts";
import { DENO, PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";
import { freeUdpPort } from "../fake-factorio/sim.ts";
import { rconExec } from "../fake-factorio/launch.mjs";

interface Fixtures {
  fakeCom: { url: string; post(path: string): Promise<void> };
  factorioDir: string;
}

const test = base.extend<Fixtures>({
  fakeCom: async ({}, use) => {
    const child: ChildProcess = spawn(
      DENO,
      [
        "run",
        ...PANEL_PERMISSIONS,
        join(ROOT, "tests/fake-factorio-com/main.ts"),
        "--cache-dir",
        join(ROOT, ".tmp/fake-factorio-com"),
        "--slow-bps",
        "300",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    const url = await new Promise<string>((ok, fail) => {
      let out = "";
      child.stdout!.on("data", (d) => {
        out += d;
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) ok(m[1]);
      });
      child.on("exit", (code) => fail(new Error(`fake factorio.com exited with ${code}`)));
    });
    await use({
      url,
      post: async (path) => {
        const r = await fetch(url + path, { method: "POST" });
        expect(r.status).toBe(200);
      },
    });
    child.kill("SIGTERM");
  },
  factorioDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "factorio-versions-e2e-"));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  panel: async ({ fakeCom, factorioDir }, use) => {
    const panel: PanelProcess = await startPanelProcess({
      args: ["--factorio-dir", factorioDir, "--factorio-com-url", fakeCom.url, "--update-warnings", "5,1"],
    });
    await use(panel);
    killRecordedGame(panel.dataDir);
    await panel.stop();
  },
});

test.setTimeout(240_000);

test(
  "install stable on an empty panel, run a save, update while running, and roll back a version that fails",
  async ({ page, panel, fakeCom, factorioDir }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openSignedIn(page, "/");
    const install = page.getByRole("region", { name: "Install Factorio" });
    await expect(install).toBeVisible({ timeout: 30_000 });
    await expect(install.getByRole("combobox").nth(1)).toHaveText("2.0.77 (stable)");
    await page.screenshot({ path: testInfo.outputPath("install-card-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: testInfo.outputPath("install-card-desktop.png"), fullPage: true });

    // The download trickles, so its progress can be seen (and photographed) on the way.
    await fakeCom.post("/_fake/mode?version=2.0.77&mode=slow");
    await install.getByRole("button", { name: "Install Factorio" }).click();
    const progress = page.getByTestId("install-progress");
    await expect(progress).toContainText(
      /Downloading Factorio 2\.0\.77[^]*[\d.]+ (B|KiB|MiB) of [\d.]+ (KiB|MiB)/,
    );
    await expect(progress.getByRole("button", { name: "Cancel install" })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("install-progress-desktop.png"), fullPage: true });
    // Every page shows it, with Cancel, on a phone too.
    await page.setViewportSize({ width: 390, height: 844 });
    await goTo(page, "Saves");
    await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toBeVisible();
    await expect(progress).toContainText("Downloading Factorio 2.0.77");
    await expect(progress.getByRole("button", { name: "Cancel install" })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("install-progress-saves-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await goTo(page, "Logs");
    await expect(progress.getByRole("button", { name: "Cancel install" })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("install-progress-logs-desktop.png"), fullPage: true });
    await fakeCom.post("/_fake/mode?version=2.0.77&mode=ok");
    // The outcome shows where the user is, and the Controls card has it too.
    await expect(page.getByTestId("install-outcome")).toHaveText("Factorio 2.0.77 is installed and active.", {
      timeout: 60_000,
    });
    await goTo(page, "Controls");
    const versions = page.getByRole("region", { name: "Game versions" });
    await expect(versions).toBeVisible({ timeout: 60_000 });
    await expect(versions.getByRole("list", { name: "Installed versions" })).toContainText("Factorio 2.0.77");
    await expect(versions.getByRole("list", { name: "Installed versions" })).toContainText("Active");
    await expect(page.getByTestId("server-version")).toHaveText("2.0.77");
    expect(existsSync(join(factorioDir, "versions", "2.0.77", "bin", "x64", "factorio"))).toBe(true);

    // A save, made by the installed game, and started from the start form.
    const created = await page.request.get(`${panel.url}/api/saves/create/world`, {
      headers: { Origin: panel.url },
    });
    expect(created.status()).toBe(200);
    await page.reload();
    const form = page.getByRole("form", { name: "Start Server" });
    // A loaded machine takes its time to load the page again.
    await expect(form).toHaveAttribute("data-saves-loaded", "true", { timeout: 30_000 });
    await form.getByLabel("Port").fill(String(await freeUdpPort()));
    await form.getByRole("combobox").click();
    await page.getByRole("option", { name: "world.zip" }).click();
    await form.getByRole("button", { name: "Start Server" }).click();
    await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 60_000 });
    // Someone plays: an update warns them first (with nobody online it would restart at once).
    await rconExec(panel.dataDir, "/fake-join alice");

    // A newer stable is out: the check finds it, Update & restart moves the running save to it.
    await fakeCom.post("/_fake/release?version=2.0.78&channel=stable");
    await versions.getByRole("button", { name: "Check for updates" }).click();
    await expect(versions.getByText("Update available: 2.0.77 → 2.0.78")).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("update-available-desktop.png"), fullPage: true });
    await versions.getByRole("button", { name: "Update & restart" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Update & restart" }).click();
    const update = page.getByTestId("update-status");
    await expect(update).toContainText(/Players are warned: the server restarts in \d s\./, {
      timeout: 60_000,
    });
    // The card counts down between the warnings (sent at 5 s and 1 s only).
    await expect(update).toContainText(/the server restarts in [234] s\./);
    await page.screenshot({ path: testInfo.outputPath("update-countdown-desktop.png"), fullPage: true });
    await expect(update).toContainText("Updated to Factorio 2.0.78; world.zip is running again.", {
      timeout: 120_000,
    });
    await expect(page.getByTestId("server-state")).toHaveText("Running");
    await expect(page.getByTestId("server-version")).toHaveText("2.0.78");
    const consoleLog = readFileSync(join(factorioDir, "factorio-console.log"), "utf8");
    expect(consoleLog).toMatch(
      /\[CHAT\] <server>: \[Server\] The server restarts in 5 seconds to update to Factorio 2\.0\.78/,
    );

    // The next one cannot start: the panel goes back to 2.0.78 and runs the save again.
    await fakeCom.post("/_fake/mode?version=2.0.79&mode=crash");
    await fakeCom.post("/_fake/release?version=2.0.79&channel=stable");
    await versions.getByRole("button", { name: "Check for updates" }).click();
    await expect(versions.getByText("Update available: 2.0.78 → 2.0.79")).toBeVisible();
    await versions.getByRole("button", { name: "Update & restart" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Update & restart" }).click();
    await expect(update).toContainText("switched back to Factorio 2.0.78 and started world.zip again", {
      timeout: 120_000,
    });
    await expect(page.getByTestId("server-state")).toHaveText("Running");
    await expect(page.getByTestId("server-version")).toHaveText("2.0.78");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: testInfo.outputPath("rolled-back-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: testInfo.outputPath("rolled-back-desktop.png"), fullPage: true });
  },
);

test(
  "a checksum that does not match: the error stays inside its alert, on a phone, with no success toast",
  async ({ page, fakeCom }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await fakeCom.post("/_fake/mode?version=2.0.77&mode=wrong-checksum");
    await openSignedIn(page, "/");
    const install = page.getByRole("region", { name: "Install Factorio" });
    await expect(install.getByRole("combobox").nth(1)).toHaveText("2.0.77 (stable)", { timeout: 30_000 });
    // Every toast the page shows from now on is noted (they vanish after 4 s).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { toasts: string[] }).toasts = seen;
      new MutationObserver(() => {
        for (
          const el of document.querySelectorAll('[data-testid="flash"]')
        ) if (!seen.includes(el.textContent ?? "")) seen.push(el.textContent ?? "");
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await install.getByRole("button", { name: "Install Factorio" }).click();
    const result = page.getByTestId("install-result");
    await expect(result).toContainText("does not match factorio.com's checksum", { timeout: 60_000 });
    // No toast said the install was under way (green, beside the red error): it had only begun.
    expect(await page.evaluate(() => (window as unknown as { toasts: string[] }).toasts)).toEqual([]);
    // The two 64-digit sums wrap inside the alert: nothing wider than it, nothing to scroll sideways.
    const fits = await result.evaluate((el) => {
      const message = el.querySelector(".MuiAlert-message")!;
      return el.getBoundingClientRect().right <= document.documentElement.clientWidth &&
        el.scrollWidth <= el.clientWidth &&
        message.scrollWidth <= message.clientWidth &&
        document.documentElement.scrollWidth <= document.documentElement.clientWidth;
    });
    expect(fits).toBe(true);
    await page.screenshot({ path: testInfo.outputPath("checksum-error-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: testInfo.outputPath("checksum-error-desktop.png"), fullPage: true });
  },
);

test(
  "a viewer sees the game versions with their buttons off and the role sentence",
  async ({ page, panel }, testInfo) => {
    const api = await adminApi(panel.url);
    await api("POST", "/api/factorio/install", { version: "2.0.76" });
    await expect.poll(async () => (await api("GET", "/api/factorio/versions")).gameFound, { timeout: 60_000 })
      .toBe(true);
    expect((await api("POST", "/api/factorio/check")).latest).toBe("2.0.77");
    await api("POST", "/api/user/add", {
      username: "vera",
      role: "viewer",
      email: "vera@example.org",
      password: "e2e-viewer-password",
      password_confirmation: "e2e-viewer-password",
    });
    await page.goto("/");
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, "vera", "e2e-viewer-password");
    for (
      const [name, viewport] of [["desktop", { width: 1280, height: 800 }], ["phone", {
        width: 390,
        height: 844,
      }]] as const
    ) {
      await page.setViewportSize(viewport);
      const versions = page.getByRole("region", { name: "Game versions" });
      await expect(versions.getByText("Update available: 2.0.76 → 2.0.77")).toBeVisible({ timeout: 30_000 });
      await expect(page.getByText("Your role (viewer) can look but not change anything here.")).toBeVisible();
      await expect(versions.getByRole("button", { name: "Check for updates" })).toBeDisabled();
      await expect(versions.getByRole("button", { name: "Update", exact: true })).toBeDisabled();
      await expect(versions.getByRole("button", { name: "Install", exact: true })).toBeDisabled();
      await page.screenshot({ path: testInfo.outputPath(`viewer-versions-${name}.png`), fullPage: true });
    }
  },
);
