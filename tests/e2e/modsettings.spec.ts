// Mod settings from the browser, on a simulated Factorio 2.0 with a mod whose settings.lua defines settings
// of every kind: edit one, save, start the game (which reads the file and writes it back), stop it, and
// the file holds the new value. Also the tab read-only while the game runs, and a pin of a mod.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect as baseExpect, test } from "./game-fixtures.ts";

// The game runs several times per test: waits are generous, so a loaded machine does not fail them.
const expect = baseExpect.configure({ timeout: 30_000 });
import { openSignedIn, ROOT } from "./fixtures.ts";
import { testModZip } from "../support/testmod.ts";
import { decodeModSettings, type PTree } from "../../backend/factorio/modsettings/propertytree.ts";

const flash = (page: Page, text: string | RegExp) => page.getByTestId("flash").filter({ hasText: text });

function storedValue(path: string, section: string, name: string): PTree | undefined {
  const root = decodeModSettings(readFileSync(path)).tree;
  if (root.type !== "dict") return undefined;
  const s = root.entries.find((e) => e.key === section)?.value;
  if (s?.type !== "dict") return undefined;
  const setting = s.entries.find((e) => e.key === name)?.value;
  return setting?.type === "dict" ? setting.entries.find((e) => e.key === "value")?.value : undefined;
}

test("edit a mod setting, start and stop the game, the file holds the new value", async ({ page, factorio, gamePort }) => {
  test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
  writeFileSync(join(factorio.dir, "mods", "test-settings-mod_1.0.0.zip"), await testModZip());
  await openSignedIn(page, "/mods");
  await page.getByRole("tab", { name: "Mod settings" }).click();
  const panel = page.getByRole("region", { name: "Mod settings" });
  await expect(panel.getByText("Enable the thing")).toBeVisible();
  await panel.getByRole("tab", { name: /^Map/ }).click();
  const count = panel.getByLabel("Value of tm-count");
  await expect(count).toHaveValue("5"); // the mod's default: not in the file yet
  await count.fill("500");
  await expect(panel.getByText("must be at most 100")).toBeVisible();
  await count.fill("42");
  await page.screenshot({ path: join(ROOT, "test-results/modsettings-desktop.png") });
  await panel.getByRole("button", { name: "Save mod settings (1)" }).click();
  await expect(flash(page, "Mod settings saved (1 changed).")).toBeVisible();
  const path = join(factorio.dir, "mods", "mod-settings.dat");
  expect(storedValue(path, "runtime-global", "tm-count")).toEqual({ type: "int", any: false, value: 42n });

  // Start the game: it reads the file and writes it back; while it runs the tab is read-only.
  await page.goto("/");
  const form = page.getByRole("form", { name: "Start Server" });
  await form.getByLabel("IP").fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(gamePort));
  await form.getByRole("button", { name: "Start Server" }).click();
  await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 90_000 });
  await page.goto("/mods");
  await page.getByRole("tab", { name: "Mod settings" }).click();
  await expect(page.getByText("The server is running: mod settings can be changed once it is stopped."))
    .toBeVisible();
  await page.getByRole("tab", { name: /^Map/ }).click();
  await expect(page.getByLabel("Value of tm-count")).toBeDisabled();
  await expect(page.getByLabel("Value of tm-count")).toHaveValue("42");

  await page.goto("/");
  await page.getByRole("button", { name: "Save & Stop Server" }).click();
  await expect(page.getByTestId("server-state")).toHaveText("Stopped", { timeout: 90_000 });
  expect(storedValue(path, "runtime-global", "tm-count")).toEqual({ type: "int", any: false, value: 42n });
  expect(decodeModSettings(readFileSync(path)).version).toEqual([2, 0, 72, 0]);
});

test("pin a mod: the pin shows, and unpinning works; the settings tab at phone width", async ({ page, factorio }) => {
  test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
  await page.setViewportSize({ width: 390, height: 844 });
  writeFileSync(join(factorio.dir, "mods", "test-settings-mod_1.0.0.zip"), await testModZip());
  writeFileSync(
    join(factorio.dir, "mods", "mod-settings.dat"),
    readFileSync(join(ROOT, "tests/fixtures/mod-settings/factorio-2.0.55.mod-settings.dat")),
  );
  await openSignedIn(page, "/mods");
  await page.getByRole("tab", { name: "Mod settings" }).click();
  await expect(page.getByText("Enable the thing")).toBeVisible();
  await page.screenshot({ path: join(ROOT, "test-results/modsettings-phone.png") });
  await page.getByRole("tab", { name: "Installed mods" }).click();
  await page.screenshot({ path: join(ROOT, "test-results/mods-phone.png") });
  const row = page.getByRole("table", { name: "Installed mods" }).getByRole("row", { name: /Test settings/ });
  await row.getByRole("button", { name: "Pin test-settings-mod at 1.0.0" }).click();
  await expect(row.getByText("pinned")).toBeVisible();
  await row.getByRole("button", { name: "Unpin test-settings-mod" }).click();
  await expect(row.getByText("pinned")).toHaveCount(0);
});

test(
  "uploading mod-settings.dat asks first, keeps the file it replaces, and the kept file comes back",
  async ({ page, factorio }, testInfo) => {
    test.setTimeout(120_000);
    const path = join(factorio.dir, "mods", "mod-settings.dat");
    const current = readFileSync(join(ROOT, "tests/fixtures/mod-settings/factorio-2.0.55.mod-settings.dat"));
    const other = readFileSync(join(ROOT, "tests/fixtures/mod-settings/factorio-1.1.110.mod-settings.dat"));
    writeFileSync(path, current);
    await openSignedIn(page, "/mods");
    await page.getByRole("tab", { name: "Mod settings" }).click();
    const panel = page.getByRole("region", { name: "Mod settings" });
    await expect(panel.getByText("last written by Factorio 2.0.55.0")).toBeVisible();
    const file = { name: "from-my-pc.dat", mimeType: "application/octet-stream", buffer: other };

    // Cancel: nothing changes.
    await panel.getByLabel("mod-settings.dat file").setInputFiles(file);
    const dialog = page.getByRole("dialog", { name: "Replace mod-settings.dat" });
    await expect(dialog).toContainText(
      "from-my-pc.dat replaces every mod setting shown here (mod-settings.dat, last written by Factorio 2.0.55.0). " +
        'The current file is kept: "Restore the previous file" brings it back.',
    );
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    expect(readFileSync(path)).toEqual(current);

    // Replace: the upload is the file now, and the one it replaced is offered back.
    await panel.getByLabel("mod-settings.dat file").setInputFiles(file);
    for (
      const [name, size] of [["phone", { width: 390, height: 844 }], ["desktop", {
        width: 1280,
        height: 800,
      }]] as const
    ) {
      await page.setViewportSize(size);
      await page.screenshot({ path: testInfo.outputPath(`modsettings-upload-confirm-${name}.png`) });
    }
    await dialog.getByRole("button", { name: "Replace" }).click();
    await expect(flash(page, "from-my-pc.dat is now the mod settings. The file it replaced is kept."))
      .toBeVisible();
    expect(readFileSync(path)).toEqual(other);
    const kept = panel.getByTestId("previous-mod-settings");
    await expect(kept).toContainText("written by Factorio 2.0.55.0");
    for (
      const [name, size] of [["phone", { width: 390, height: 844 }], ["desktop", {
        width: 1280,
        height: 800,
      }]] as const
    ) {
      await page.setViewportSize(size);
      await page.screenshot({ path: testInfo.outputPath(`modsettings-kept-${name}.png`) });
    }

    await kept.getByRole("button", { name: "Restore the previous file" }).click();
    const restore = page.getByRole("dialog", { name: "Restore the previous mod-settings.dat" });
    await expect(restore).toContainText(
      "It replaces the current one (Factorio 1.1.110.0), which is kept in its place",
    );
    await restore.getByRole("button", { name: "Restore" }).click();
    await expect(flash(page, "The previous mod-settings.dat (Factorio 2.0.55.0) is back")).toBeVisible();
    expect(readFileSync(path)).toEqual(current);
    await expect(kept).toContainText("written by Factorio 1.1.110.0");
  },
);
