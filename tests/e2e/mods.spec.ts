import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, openSignedIn, PORTAL_USER, test } from "./portal-fixtures.ts";
import { ROOT } from "./fixtures.ts";
import { MSG } from "../../shared/messages.ts";
import type { Page } from "@playwright/test";

const flash = (page: Page, text: string | RegExp) => page.getByTestId("flash").filter({ hasText: text });
const installed = (page: Page) => page.getByRole("table", { name: "Installed mods" });

async function portalLogin(page: Page) {
  const form = page.getByRole("form", { name: "Mod portal login" });
  await form.getByLabel("Username").fill(PORTAL_USER.username);
  await form.getByLabel("Password").fill("not the password");
  await form.getByRole("button", { name: "Login" }).click();
  await expect(flash(page, MSG.portalLoginFailed)).toBeVisible();
  await form.getByLabel("Password").fill(PORTAL_USER.password);
  await form.getByRole("button", { name: "Login" }).click();
  await expect(page.getByLabel("Search mods")).toBeVisible();
}

async function installFromPortal(page: Page, query: string, title: string) {
  const search = page.getByLabel("Search mods");
  await search.fill(query);
  await page.getByRole("option", { name: new RegExp(title) }).click();
  await page.getByRole("button", { name: "Install", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Select Version" });
  await expect(dialog.getByRole("table", { name: "Releases" })).toBeVisible();
  return dialog;
}

test("log in to the portal, search, install a chosen version, see the update and update", async ({ page }) => {
  await openSignedIn(page, "/mods");
  await expect(page.getByRole("tab", { name: "Install Mod" })).toBeVisible();
  await portalLogin(page);

  const dialog = await installFromPortal(page, "panel libr", "Factorio Panel Library");
  // Newest first; only releases for this game (2.0) can be installed.
  const rows = dialog.getByRole("row");
  await expect(rows.nth(1)).toContainText("1.2.0");
  await expect(rows.nth(4)).toContainText("0.9.0");
  await expect(dialog.getByRole("button", { name: "Install fp-library 1.2.0" })).toBeDisabled();
  await dialog.getByRole("button", { name: "Install fp-library 1.0.0" }).click();
  await expect(flash(page, "Factorio Panel Library is installed.")).toBeVisible();
  const row = installed(page).getByRole("row", { name: /Factorio Panel Library/ });
  await expect(row).toContainText("1.0.0");

  // The portal has 1.1.0 for 2.0: the row offers it, and Update all Mods is on.
  const update = row.getByRole("button", { name: "Update fp-library to 1.1.0" });
  await expect(update).toBeVisible();
  await expect(page.getByRole("button", { name: "Update all Mods" })).toBeEnabled();
  await update.click();
  await expect(flash(page, "fp-library is updated to 1.1.0.")).toBeVisible();
  await expect(row).toContainText("1.1.0");
  await expect(row.getByRole("button", { name: /Update fp-library/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Update all Mods" })).toBeDisabled();

  // Installing a mod brings the mods it requires.
  await installFromPortal(page, "train helper", "Train Helper");
  await page.getByRole("dialog").getByRole("button", { name: "Install fp-trains 2.0.0" }).click();
  await expect(flash(page, "Train Helper is installed, with the mods it needs: fp-signals.")).toBeVisible();
  await expect(installed(page).getByRole("row", { name: /Signal Helper/ })).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/mods-installed.png", fullPage: true });
});

test("upload a mod, create a pack, change the mods, load the pack back", async ({ page, factorioDir }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openSignedIn(page, "/mods");
  await page.getByRole("tab", { name: "Upload Mod" }).click();
  await page.getByLabel("Mod file").setInputFiles(join(ROOT, "tests/fixtures/mods/belt-balancer_2.1.3.zip"));
  await page.getByRole("button", { name: "Upload" }).click();
  await expect(flash(page, "belt-balancer_2.1.3.zip is uploaded.")).toBeVisible();
  await expect(installed(page).getByRole("row", { name: /Belt Balancer/ })).toContainText("2.1.3");

  await page.getByRole("button", { name: "Add ModPack with current installed Mods" }).click();
  const create = page.getByRole("form", { name: "Create Mod Pack" });
  await create.getByRole("button", { name: "Create" }).click();
  await expect(create.getByText(MSG.modPackNameRequired)).toBeVisible();
  await create.getByLabel("Name").fill("Weekend");
  await create.getByRole("button", { name: "Create" }).click();
  await expect(flash(page, "The mod pack Weekend is created.")).toBeVisible();
  await page.getByRole("button", { name: "Show the mods of Weekend" }).click();
  await expect(
    page.getByRole("table", { name: "Mods of pack Weekend" }).getByRole("row", { name: /Belt Balancer/ }),
  ).toBeVisible();

  // Change the installed mods: switch off Space Age, delete belt-balancer.
  await installed(page).getByRole("switch", { name: "Enable space-age" }).click();
  await expect(installed(page).getByRole("switch", { name: "Enable space-age" })).not.toBeChecked();
  await installed(page).getByRole("button", { name: "Delete belt-balancer" }).click();
  await page.getByRole("dialog", { name: "Delete Mod" }).getByRole("button", { name: "Delete" }).click();
  await expect(installed(page).getByRole("row", { name: /Belt Balancer/ })).toHaveCount(0);

  await page.getByRole("button", { name: "Load mod pack Weekend" }).click();
  const confirm = page.getByRole("dialog", { name: "Load Mod Pack" });
  await expect(confirm).toContainText(MSG.loadModPackConfirm("Weekend"));
  await confirm.getByRole("button", { name: "Load" }).click();
  await expect(flash(page, "The mod pack Weekend is loaded.")).toBeVisible();
  await expect(installed(page).getByRole("row", { name: /Belt Balancer/ })).toContainText("2.1.3");
  await expect(installed(page).getByRole("switch", { name: "Enable space-age" })).toBeChecked();
  expect(readdirSync(join(factorioDir, "mods")).filter((f) => !f.startsWith(".")).sort()).toEqual([
    "belt-balancer_2.1.3.zip",
    "mod-list.json",
  ]);
  await page.screenshot({ path: "test-results/e2e/mods-packs-phone.png", fullPage: true });
});

/**
 * A save made by the (simulated) game with these mods and without Space Age; the mods folder is emptied
 * afterwards, as on a server that has not got them yet.
 */
function makeSave(factorioDir: string, name: string, mods: [string, string][]) {
  const zip = (file: string) => join(factorioDir, "mods", file);
  const make = spawnSync(join(ROOT, "node_modules/.bin/deno"), [
    "eval",
    `import { buildModZip } from "./tests/fake-portal/catalog.ts";
     for (const [n, v] of ${JSON.stringify(mods)}) {
       Deno.writeFileSync(${
      JSON.stringify(join(factorioDir, "mods"))
    } + "/" + n + "_" + v + ".zip", await buildModZip({ name: n, version: v, factorio_version: "2.0" }));
     }`,
  ], { cwd: ROOT, encoding: "utf8" });
  expect(make.status, make.stderr).toBe(0);
  writeFileSync(zip("mod-list.json"), JSON.stringify({ mods: [{ name: "space-age", enabled: false }] }));
  const created = spawnSync(join(factorioDir, "bin/x64/factorio"), [
    "--create",
    join(factorioDir, "saves", name),
  ], { encoding: "utf8" });
  expect(created.status, created.stdout + created.stderr).toBe(0);
  for (const f of readdirSync(join(factorioDir, "mods"))) rmSync(zip(f));
}

async function showSaveMods(page: Page, save: string) {
  await page.getByRole("tab", { name: "Load Mod from Save" }).click();
  await page.getByRole("combobox", { name: "Save" }).click();
  await page.getByRole("option", { name: save }).click();
  await page.getByRole("button", { name: "Show Mods" }).click();
  return page.getByRole("table", { name: `Mods of ${save}` });
}

test("load the mods of a 2.0 save: downloaded in the save's versions, built-ins switched to match", async ({ page, factorioDir }) => {
  const zip = (name: string) => join(factorioDir, "mods", name);
  makeSave(factorioDir, "modded.zip", [["fp-library", "1.0.0"], ["fp-signals", "1.0.0"]]);

  await openSignedIn(page, "/mods");
  await portalLogin(page);
  const list = await showSaveMods(page, "modded.zip");
  await expect(list).toContainText("fp-library");
  await expect(list.getByRole("row", { name: /base/ })).toContainText("built-in");
  await page.screenshot({ path: "test-results/e2e/mods-load-from-save.png" });
  await page.getByRole("button", { name: "Install Mods" }).click();
  await expect(flash(page, MSG.modsLoadedFromSave("modded.zip"))).toBeVisible();
  await expect(installed(page).getByRole("row", { name: /Factorio Panel Library/ })).toContainText("1.0.0");
  await expect(installed(page).getByRole("switch", { name: "Enable space-age" })).not.toBeChecked();
  expect(existsSync(zip("fp-signals_1.0.0.zip"))).toBe(true);
});

test("load the mods of a save with a mod the portal lacks: the reason in red, each mod's outcome, the page stays", async ({ page, factorioDir }) => {
  makeSave(factorioDir, "odd.zip", [["fp-library", "1.0.0"], ["my-own-mod", "0.1.0"]]);
  await openSignedIn(page, "/mods");
  await portalLogin(page);
  const list = await showSaveMods(page, "odd.zip");
  await page.getByRole("button", { name: "Install Mods" }).click();
  const reason = "Some mods could not be installed: my-own-mod 0.1.0.0 (not on the mod portal).";
  await expect(flash(page, reason)).toBeVisible();
  await expect(list.getByRole("row", { name: /my-own-mod/ })).toContainText(
    "Not installed: not on the mod portal",
  );
  await expect(list.getByRole("row", { name: /fp-library/ })).toContainText("Installed");
  await expect(list.getByRole("row", { name: /^base/ })).toContainText("Built in, switched on");
  await expect(page.getByText("Switched off, as the save does not use it: space-age.")).toBeVisible();
  // The mod that could be had is installed and listed.
  await expect(installed(page).getByRole("row", { name: /Factorio Panel Library/ })).toContainText("1.0.0");
  for (const [width, height, name] of [[390, 844, "phone"], [1280, 800, "desktop"]] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({
      path: `test-results/e2e/mods-load-from-save-failed-${name}.png`,
      fullPage: true,
    });
  }
});

test("on a phone every Mods tab shows its whole label, without scrolling", async ({ page }) => {
  for (const [width, height] of [[390, 844], [320, 640]] as const) {
    await page.setViewportSize({ width, height });
    if (width === 390) await openSignedIn(page, "/mods");
    for (const name of ["Mods or their settings", "Add mods"]) {
      const list = page.getByRole("tablist", { name });
      const area = (await list.boundingBox())!;
      for (const tab of await list.getByRole("tab").all()) {
        const box = (await tab.boundingBox())!;
        const label = await tab.innerText();
        expect(box.x, `${label} at ${width} px`).toBeGreaterThanOrEqual(area.x - 0.5);
        expect(box.x + box.width, `${label} at ${width} px`).toBeLessThanOrEqual(area.x + area.width + 0.5);
        expect(
          await tab.evaluate((el) => el.scrollWidth <= el.clientWidth),
          `${label} is not cut at ${width} px`,
        ).toBe(true);
      }
    }
    await page.screenshot({ path: `test-results/e2e/mods-tabs-${width}.png` });
  }
});
