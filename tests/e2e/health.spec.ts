// Server health in Chromium (issue 51): the health cards on Controls with the simulated game running, at a
// phone's and a desktop's width; exact UPS asks first and says what it costs (achievements); the public
// status page without signing in, at both widths, showing only what the admin chose.

import { rconExec } from "../fake-factorio/launch.mjs";
import { adminApi, openSignedIn } from "./fixtures.ts";
import { expect, test } from "./game-fixtures.ts";

test.use({ panelArgs: ["--health-sample-seconds", "1"] });

test(
  "Controls shows CPU, memory, disk, players, map age and UPS; exact UPS warns about achievements first",
  async ({ page, panel, gamePort: port }, testInfo) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await openSignedIn(page, "/");
    const start = await page.request.post("/api/server/start", {
      data: { bindip: "127.0.0.1", port, savefile: "world.zip" },
    });
    expect(start.status(), await start.text()).toBe(200);
    await rconExec(panel.dataDir, "/fake-join alice");
    const health = page.getByRole("region", { name: "Health", exact: true });
    await expect(health.getByTestId("health-players")).toContainText("1", { timeout: 60_000 });
    await expect(health.getByTestId("health-memory")).toContainText(/\d+ (MiB|KiB|GiB)/);
    await expect(health.getByTestId("health-disk")).toContainText(/\d+(\.\d)? (MiB|GiB)/);
    await expect(health.getByTestId("health-cpu")).toContainText(/\d+ %/, { timeout: 30_000 });
    await expect(health.getByTestId("health-map-age")).toContainText(/\d+ min|less than a minute/);
    await expect(health.getByTestId("health-ups")).toContainText(/measuring|paused|\d+/);
    // Every card fits the phone's width, nothing cut off at the right.
    for (
      const id of [
        "health-ups",
        "health-cpu",
        "health-memory",
        "health-disk",
        "health-players",
        "health-map-age",
      ]
    ) {
      const box = (await health.getByTestId(id).boundingBox())!;
      expect(box.x >= 0 && box.x + box.width <= 390, `${id} at ${box.x}+${box.width}`).toBe(true);
    }
    await health.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath("health-phone.png"), fullPage: true });

    // Exact UPS: the dialog says what it costs before anything is switched.
    const settings = page.getByRole("region", { name: "Health settings" });
    await settings.getByLabel("Exact UPS (Lua)").click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText("Any Lua command disables achievements for that save");
    await page.screenshot({ path: testInfo.outputPath("health-exact-dialog-phone.png") });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(settings.getByLabel("Exact UPS (Lua)")).not.toBeChecked();
    await settings.getByLabel("Exact UPS (Lua)").click();
    await page.getByRole("dialog").getByRole("button", { name: "Switch on" }).click();
    await expect(settings.getByLabel("Exact UPS (Lua)")).toBeChecked();
    await expect(health.getByTestId("health-ups")).toContainText(/6\d\.\d\s*exact|59\.\d\s*exact/, {
      timeout: 60_000,
    });

    await page.setViewportSize({ width: 1280, height: 800 });
    await rconExec(panel.dataDir, "/fake-ups 30");
    await expect(health.getByTestId("health-ups")).toContainText(/(2\d|3\d)\.\d/, { timeout: 60_000 });
    await health.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath("health-desktop.png"), fullPage: true });

    // The history: the last hour's points, drawn by uPlot (loaded when the panel shows), with the start marked.
    const chart = page.getByRole("region", { name: "Health over time" });
    await chart.getByRole("button", { name: "Hour", exact: true }).click();
    await expect(chart.getByTestId("health-chart").locator("canvas")).toBeVisible({ timeout: 30_000 });
    await expect(chart.getByTestId("health-marks")).toContainText("start");
    await chart.getByRole("button", { name: "Memory" }).click();
    await expect(chart.getByTestId("health-chart")).toContainText("Memory (MiB)");
    await chart.scrollIntoViewIfNeeded();
    await chart.screenshot({ path: testInfo.outputPath("health-chart-desktop.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    // The chart follows the narrower width: all of it on the phone's screen once scrolled to.
    await chart.getByTestId("health-chart").locator("canvas").scrollIntoViewIfNeeded();
    await expect(chart.getByTestId("health-chart").locator("canvas")).toBeInViewport({ ratio: 1 });
    // A tap on the chart shows the values at that time in the legend.
    const over = chart.getByTestId("health-chart").locator(".u-over");
    const box = (await over.boundingBox())!;
    await over.click({ position: { x: box.width - 2, y: box.height / 2 } });
    await expect(chart.locator(".u-legend .u-series").first()).toContainText(/\d:\d\d/);
    await expect(chart.locator(".u-legend .u-series").nth(1)).toContainText(/\d+\.\d/);
    await chart.screenshot({ path: testInfo.outputPath("health-chart-phone.png") });
  },
);

test(
  "the public status page: nothing until opted in, then only what the admin chose, at both widths, without signing in",
  async ({ browser, panel, gamePort: port }, testInfo) => {
    test.setTimeout(120_000);
    const api = await adminApi(panel.url);
    const context = await browser.newContext();
    const page = await context.newPage();
    const off = await page.goto(`${panel.url}/status/default`);
    expect(off!.status()).toBe(404);

    await api("POST", "/api/server/start", { bindip: "127.0.0.1", port, savefile: "world.zip" });
    await rconExec(panel.dataDir, "/fake-join alice");
    await api("POST", "/api/health/settings", {
      public_status: true,
      public_players: false,
      public_address: "play.example.org",
    });
    await api("POST", "/api/settings/update", { name: "Our Factory" });

    // The page is cached for a few seconds (Cache-Control): it is asked once the panel's sample has alice.
    await expect.poll(async () => (await api("GET", "/api/health")).players_online, { timeout: 30_000 }).toBe(
      1,
    );
    await page.setViewportSize({ width: 390, height: 844 });
    const r = await page.goto(`${panel.url}/status/default`);
    expect(r!.status()).toBe(200);
    expect(r!.headers()["cache-control"]).toBe("public, max-age=10");
    await expect(page.getByRole("heading", { name: "Our Factory" })).toBeVisible();
    await expect(page.getByTestId("public-state")).toHaveText("Online");
    await expect(page.locator("dd").nth(1)).toHaveText("1");
    await expect(page.getByText("play.example.org")).toBeInViewport();
    const html = await page.content();
    // Nothing private: no player names (hidden), no save, no RCON, no paths, no panel data.
    for (const secret of ["alice", "world.zip", "rcon", panel.dataDir, "factorio-e2e"]) {
      expect(html).not.toContain(secret);
    }
    await page.screenshot({ path: testInfo.outputPath("public-status-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: testInfo.outputPath("public-status-desktop.png"), fullPage: true });

    const json = await (await page.request.get(`${panel.url}/status/default.json`)).text();
    for (const secret of ["alice", "world.zip", "rcon", panel.dataDir]) expect(json).not.toContain(secret);
    const badge = await page.goto(`${panel.url}/status/default.svg`);
    expect(badge!.headers()["content-type"]).toBe("image/svg+xml");
    await page.screenshot({ path: testInfo.outputPath("public-badge.png") });
    await context.close();
  },
);
