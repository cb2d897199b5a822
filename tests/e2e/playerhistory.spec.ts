// The Player history page on a phone and a desktop: players who joined the simulated game, with every
// column's value in view (on a phone Play time and Sessions were cut off at the right), and sorting.

import { rconExec } from "../fake-factorio/launch.mjs";
import { openSignedIn } from "./fixtures.ts";
import { expect, test } from "./game-fixtures.ts";

test(
  "players' play time and sessions are in view at 390x844 and 1280x800; the order can be chosen on both",
  async ({ page, panel, gamePort: port }, testInfo) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await openSignedIn(page, "/players/history");
    const start = await page.request.post("/api/server/start", {
      data: { bindip: "127.0.0.1", port, savefile: "world.zip" },
    });
    expect(start.status(), await start.text()).toBe(200);
    await rconExec(panel.dataDir, `/fake-join alice "Jean Luc"`);
    await rconExec(panel.dataDir, `/fake-leave alice`);
    await rconExec(panel.dataDir, `/fake-join alice`);
    await rconExec(panel.dataDir, `/fake-leave alice`);
    await page.reload();
    const table = page.getByRole("table", { name: "Players history" });
    // A loaded machine: the page, its data and the tail of the game's log may all take a while.
    const alice = table.getByRole("row").filter({ hasText: "alice" });
    await expect(alice).toBeVisible({ timeout: 60_000 });
    // Everything of a row is on the screen, nothing scrolled away at the right.
    for (const cell of await alice.getByRole("cell").all()) await expect(cell).toBeInViewport({ ratio: 1 });
    await expect(alice).toContainText("2 sessions", { timeout: 60_000 });
    await expect(table.getByRole("row").filter({ hasText: "Jean Luc" })).toContainText("1 session");
    await expect(alice).toContainText(/Last seen \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await expect(alice).toContainText(/First seen \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await expect(alice).toContainText(/\d+ s|\d+ min/);
    const names = () => table.getByRole("row").locator("td:first-child > div:first-child");
    await expect(names()).toHaveText(["Jean Luc online", "alice"]); // last seen, newest first
    await page.getByLabel("Sort by").click();
    await page.getByRole("option", { name: "Sessions" }).click();
    await expect(names()).toHaveText(["alice", "Jean Luc online"]);
    await page.screenshot({ path: testInfo.outputPath("player-history-phone.png"), fullPage: true });

    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(table.getByRole("columnheader")).toHaveText([
      "Player",
      "Last seen",
      "First seen",
      "Play time",
      "Sessions",
    ]);
    const wide = table.getByRole("row").filter({ hasText: "alice" });
    for (const cell of await wide.getByRole("cell").all()) await expect(cell).toBeInViewport({ ratio: 1 });
    await expect(wide.getByRole("cell").last()).toHaveText("2");
    await page.screenshot({ path: testInfo.outputPath("player-history-desktop.png"), fullPage: true });
  },
);
