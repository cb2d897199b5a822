// Factorio 2.1 and who can join: the Mods page says, before a start, whether vanilla clients can join
// with the mods that are on, counting 2.1's built-in recycler, which the game switches on by itself when
// mod-list.json does not name it. mod-list.json is never written while the game runs (the game writes it
// back on exit, and the change would be lost): switches are refused until it is stopped.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./game-fixtures.ts";
import { openSignedIn } from "./fixtures.ts";
import type { Page } from "@playwright/test";

test.use({ gameVersion: "2.1" });

const note = (page: Page) => page.getByRole("note", { name: "Who can join" });
const installed = (page: Page) => page.getByRole("table", { name: "Installed mods" });

async function switchOff(page: Page, name: string) {
  const sw = installed(page).getByRole("switch", { name: `Enable ${name}` });
  await sw.click();
  await expect(sw).not.toBeChecked();
}

test("2.1: the Mods page says whether vanilla clients can join, recycler included; nothing changes while the game runs", async ({ page, factorio, gamePort }) => {
  await openSignedIn(page, "/mods");
  await expect(note(page)).toHaveText(
    "Vanilla clients cannot join: elevated-rails, quality, recycler and space-age are on, which need Space Age. Switch them off to let players without Space Age join.",
  );
  // Switching off what factorio-docker's DLC switch knows leaves the one it does not.
  for (const name of ["space-age", "quality", "elevated-rails"]) await switchOff(page, name);
  await expect(note(page)).toHaveText(
    "Vanilla clients cannot join: recycler is on, which needs Space Age. Switch it off to let players without Space Age join.",
  );
  for (const [width, height, name] of [[390, 844, "phone"], [1280, 800, "desktop"]] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/e2e/mods-join-recycler-${name}.png` });
  }
  await switchOff(page, "recycler");
  await expect(note(page)).toHaveText(
    "Vanilla clients can join: no Space Age content and no other mods are on.",
  );

  // The game starts without the expansion: it loads base only.
  const modList = join(factorio.dir, "mods", "mod-list.json");
  const start = await page.request.post("/api/server/start", {
    data: { bindip: "127.0.0.1", port: gamePort, savefile: "world.zip" },
  });
  expect(start.status(), await start.text()).toBe(200);
  await expect.poll(() => readFileSync(join(factorio.dir, "factorio-current.log"), "utf8")).toContain(
    "Hosting game",
  );
  const log = readFileSync(join(factorio.dir, "factorio-current.log"), "utf8");
  expect(log).toContain("Loading mod base");
  expect(log).not.toMatch(/Loading mod (recycler|quality|space-age|elevated-rails)/);

  // While it runs the page still says who can join, and mod-list.json is not written.
  await page.reload();
  await expect(note(page)).toHaveText(
    "Vanilla clients can join: no Space Age content and no other mods are on.",
  );
  await expect(installed(page).getByRole("switch", { name: "Enable recycler" })).toBeDisabled();
  const before = readFileSync(modList, "utf8");
  const refused = await page.request.post("/api/mods/toggle", { data: { name: "recycler" } });
  expect(refused.status()).toBe(423);
  expect(await refused.json()).toBe(
    "This is not possible while the Factorio server is running. Stop the server first.",
  );
  expect(readFileSync(modList, "utf8")).toBe(before);
  await page.screenshot({ path: "test-results/e2e/mods-join-running-desktop.png" });
  const stop = await page.request.get("/api/server/stop");
  expect(stop.status(), await stop.text()).toBe(200);
});
