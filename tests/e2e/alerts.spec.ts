// Alert channels end to end: a Discord channel added on the Notifications page points at the local
// Discord double; "Send test" reaches it; the simulated game crashes and the double receives the crash
// embed. Players who joined and chatted show on the Player history page and in the chart on Controls.

// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)
import { rconExec } from "../fake-factorio/launch.mjs";
import { openSignedIn } from "./fixtures.ts";
import { expect, test as gameTest } from "./game-fixtures.ts";
import { type FakeAlerts, startFakeAlerts } from "../fake-alerts/server.mjs";
import { PUSH_MSG } from "../../shared/messages.ts";

const test = gameTest.extend<{ fakeAlerts: FakeAlerts }>({
  fakeAlerts: async ({}, use) => {
    const fake = await startFakeAlerts();
    await use(fake);
    await fake.close();
  },
});

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

test("a Discord channel gets the test and the crash embed; players' history and chat show", async ({ page, panel, fakeAlerts, gamePort: port }) => {
  test.setTimeout(180_000);
  const hook = fakeAlerts.discordUrl("e2e");
  const hookPath = new URL(hook).pathname;

  await page.setViewportSize(DESKTOP);
  await openSignedIn(page, "/notifications");
  await page.getByRole("button", { name: "Add channel" }).click();
  const dialog = page.getByRole("dialog", { name: "Add channel" });
  await dialog.getByLabel("Name").fill("Friends Discord");
  await dialog.getByLabel("Webhook URL").fill(hook);
  await expect(dialog.getByRole("checkbox", { name: "Crashed" })).toBeChecked();
  await dialog.getByRole("button", { name: "Add" }).click();

  const row = page.getByRole("listitem", { name: "Friends Discord" });
  await expect(row).toContainText("Discord webhook");
  await expect(row).not.toContainText("tok-e2e-abcdefghijklmnopqrstuvwxyz");
  await row.getByRole("button", { name: "Send test to Friends Discord" }).click();
  await expect(page.getByText("Sent to Friends Discord (answered HTTP 204).")).toBeVisible();
  const test1 = await fakeAlerts.waitFor((r) => r.path === hookPath && r.status === 204);
  expect(test1.json.embeds[0].title).toBe("Test alert");
  await expect(row).toContainText("HTTP 204");
  await expect(page.getByText("Sent to Friends Discord (answered HTTP 204).")).toBeHidden({
    timeout: 15_000,
  });
  await page.screenshot({ path: "test-results/e2e/alerts-channels-desktop.png", fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: "test-results/e2e/alerts-channels-phone.png", fullPage: true });
  await page.getByRole("button", { name: "Add channel" }).click();
  await page.getByRole("dialog", { name: "Add channel" }).getByLabel("Type").click();
  await page.getByRole("option", { name: "ntfy" }).click();
  await page.screenshot({ path: "test-results/e2e/alerts-add-ntfy-phone.png", fullPage: true });
  await page.getByRole("dialog", { name: "Add channel" }).getByRole("button", { name: "Cancel" }).click();

  // The game runs, players come and talk, then it crashes.
  const start = await page.request.post("/api/server/start", {
    data: { bindip: "127.0.0.1", port, savefile: "world.zip" },
  });
  expect(start.status(), await start.text()).toBe(200);
  await rconExec(panel.dataDir, `/fake-join alice "Jean Luc"`);
  await rconExec(panel.dataDir, `/fake-chat "Jean Luc" who took my iron plates?`);
  await rconExec(panel.dataDir, `/fake-leave alice`);
  await rconExec(panel.dataDir, "/fake-crash 3").catch(() => {}); // the game dies before it answers

  const crash = await fakeAlerts.waitFor((r) =>
    r.path === hookPath && r.status === 204 && r.json.embeds[0].title.endsWith(`: ${PUSH_MSG.titleCrashed}`)
  );
  expect(crash.json.embeds[0].description).toMatch(/^Exit code 3\./);
  expect(crash.json.embeds[0].color).toBe(0xd32f2f);

  await page.goto("/players/history");
  const table = page.getByRole("table", { name: "Players history" });
  // A loaded machine: the page, its data and the tail of the game's log may all take a while.
  await expect(table.getByRole("row")).toHaveCount(3, { timeout: 60_000 });
  await expect(table).toContainText("Jean Luc");
  await expect(page.getByRole("list", { name: "Chat lines" })).toContainText(
    "Jean Luc: who took my iron plates?",
    { timeout: 30_000 },
  );
  await page.getByLabel("Search chat").fill("nothing like this");
  await expect(page.getByText("Nothing said matches.")).toBeVisible();
  await page.getByLabel("Search chat").fill("");
  await expect(page.getByRole("list", { name: "Chat lines" })).toContainText(
    "Jean Luc: who took my iron plates?",
  );
  await page.screenshot({ path: "test-results/e2e/player-history-phone.png", fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: "test-results/e2e/player-history-desktop.png", fullPage: true });

  await page.goto("/");
  await expect(page.getByRole("img", { name: /Players online over the last 24 hours: 0 now, at most 2\./ }))
    .toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: "test-results/e2e/controls-chart-desktop.png", fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: "test-results/e2e/controls-chart-phone.png", fullPage: true });
});
