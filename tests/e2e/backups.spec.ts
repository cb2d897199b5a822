// Backups and schedules from the browser, on a simulated Factorio: a schedule that backs up every minute,
// the backup it makes, restoring it into a new save, and starting that save. Screenshots of both pages
// at phone and desktop widths.

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./game-fixtures.ts";
import { adminApi, goTo, openSignedIn, ROOT, signIn, signOut } from "./fixtures.ts";
import { BACKUP_MSG } from "../../shared/backups.ts";
import { VIEWER_NOTE } from "../../pwa/src/state/access.ts";
import type { Page } from "@playwright/test";

/** Follows a sidebar link and waits for its page's heading. */
async function goToPage(page: Page, link: string): Promise<void> {
  await goTo(page, link);
  await expect(page.getByRole("heading", { name: link, level: 1 })).toBeVisible();
}

test("a schedule backs up every minute; the backup restores into a new save that starts", async ({ page, gamePort }) => {
  test.setTimeout(180_000);
  await openSignedIn(page, "/schedules");
  await expect(page.getByRole("heading", { name: "Schedules", level: 1 })).toBeVisible();

  await page.getByRole("button", { name: "New schedule" }).click();
  const dialog = page.getByRole("dialog", { name: "New schedule" });
  await dialog.getByLabel("Name").fill("Every minute");
  await dialog.getByLabel(/When \(cron/).fill("* * * * *");
  await expect(dialog.getByTestId("cron-preview")).toContainText("every minute");
  await expect(dialog.getByTestId("cron-preview")).toContainText("Next:");
  // Keep only the backup task of the suggested three (warn, back up, restart).
  await dialog.getByRole("button", { name: "Remove task 3" }).click();
  await dialog.getByRole("button", { name: "Remove task 1" }).click();
  await expect(dialog.getByTestId("task")).toHaveCount(1);
  await dialog.getByRole("button", { name: "Save schedule" }).click();
  await expect(dialog).toBeHidden();
  const card = page.getByRole("region", { name: "Every minute" });
  await expect(card).toContainText("every minute");

  // Within a minute (and a bit) the schedule has run and made a backup.
  await goToPage(page, "Backups");
  const rows = page.getByTestId("backup-row");
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh the list" }).click();
    await expect(rows.first()).toContainText("Schedule", { timeout: 2_000 });
  }).toPass({ timeout: 90_000 });
  await expect(rows.first()).toContainText("world.zip");

  // Restore it into a new save.
  await rows.first().getByRole("button", { name: /^Restore / }).click();
  const restore = page.getByRole("dialog", { name: "Restore backup" });
  await restore.getByLabel("New save name").fill("from-backup.zip");
  await restore.getByRole("button", { name: "Restore" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "Restored save from-backup.zip" })).toBeVisible();

  // The schedule records its run.
  await goToPage(page, "Schedules");
  await page.getByRole("button", { name: /Last runs/ }).click();
  await expect(card.getByTestId("run").first()).toContainText("ok");
  await expect(card.getByTestId("run").first()).toContainText("backup:");

  // Start the restored save.
  await goToPage(page, "Controls");
  const form = page.getByRole("form", { name: "Start Server" });
  await form.getByLabel("IP").fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(gamePort));
  await form.getByRole("combobox").click();
  await page.getByRole("option", { name: "from-backup.zip" }).click();
  await form.getByRole("button", { name: "Start Server" }).click();
  await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 30_000 });
  await expect(page.getByTestId("server-save")).toHaveText("from-backup.zip");
});

for (
  const [name, size] of [["phone", { width: 390, height: 844 }], ["desktop", {
    width: 1280,
    height: 800,
  }]] as const
) {
  test(`backups and schedules pages at ${name} width`, async ({ page }, testInfo) => {
    // Many steps on a machine shared by several test runs: more than the default minute.
    test.setTimeout(150_000);
    await page.setViewportSize(size);
    await openSignedIn(page, "/backups");
    await page.getByRole("button", { name: "Back up now" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: "Backup of world.zip made" })).toBeVisible();
    await expect(page.getByTestId("backup-row")).toHaveCount(1);
    // Touch targets on a phone: every icon button of a row is at least 44 px.
    for (const button of await page.getByTestId("backup-row").locator("button, a").all()) {
      const box = await button.boundingBox();
      if (name === "phone") expect(Math.min(box!.width, box!.height)).toBeGreaterThanOrEqual(44);
    }
    await page.screenshot({ path: testInfo.outputPath(`backups-${name}.png`), fullPage: true });
    await page.getByRole("button", { name: /^Restore / }).click();
    await page.screenshot({ path: testInfo.outputPath(`backups-restore-${name}.png`) });
    await page.getByRole("button", { name: "Cancel" }).click();

    await goToPage(page, "Schedules");
    await page.getByRole("button", { name: "New schedule" }).click();
    const dialog = page.getByRole("dialog", { name: "New schedule" });
    await dialog.getByLabel("Name").fill("Nightly restart");
    await expect(dialog.getByTestId("cron-preview")).toContainText("every day at 04:00");
    await page.screenshot({ path: testInfo.outputPath(`schedule-form-${name}.png`) });
    await dialog.getByRole("button", { name: "Save schedule" }).click();
    await expect(page.getByRole("region", { name: "Nightly restart" })).toContainText("every day at 04:00");
    await page.screenshot({ path: testInfo.outputPath(`schedules-${name}.png`), fullPage: true });
  });
}

test(
  'restore into a new save leaves mods and mod-settings.dat alone; "Also restore" names what it replaces',
  async ({ page, panel, factorio }, testInfo) => {
    test.setTimeout(150_000);
    const mods = join(factorio.dir, "mods");
    writeFileSync(join(mods, "kept_1.0.0.zip"), "a mod in the backup");
    const api = await adminApi(panel.url);
    const made = await api("POST", "/api/backups", { include: ["mods"] });
    // Since the backup: another mod installed, other mod settings.
    writeFileSync(join(mods, "installed-later_1.0.0.zip"), "installed after the backup");
    const settings = readFileSync(join(ROOT, "tests/fixtures/mod-settings/factorio-2.0.55.mod-settings.dat"));
    writeFileSync(join(mods, "mod-settings.dat"), settings);
    const before = readdirSync(mods).sort();

    await openSignedIn(page, "/backups");
    const row = page.getByTestId("backup-row").filter({ hasText: "Manual" });
    await row.getByRole("button", { name: `Restore ${made.id}` }).click();
    const dialog = page.getByRole("dialog", { name: "Restore backup" });
    const also = dialog.getByLabel(/^Also restore /);
    await expect(also).not.toBeChecked();
    await dialog.getByLabel("New save name").fill("restored.zip");
    await expect(dialog.getByTestId("restore-summary")).toHaveText(
      "Writes the new save restored.zip. Nothing else changes.",
    );
    await dialog.getByRole("button", { name: "Restore" }).click();
    await expect(
      page.getByTestId("flash").filter({ hasText: `Restored save restored.zip from backup ${made.id}.` }),
    ).toBeVisible();
    expect(existsSync(join(factorio.dir, "saves", "restored.zip"))).toBe(true);
    expect(readdirSync(mods).sort()).toEqual(before);
    expect(readFileSync(join(mods, "mod-settings.dat"))).toEqual(settings);

    // Asked for: the dialog names the mods folder, and what it replaces is backed up first.
    await row.getByRole("button", { name: `Restore ${made.id}` }).click();
    await dialog.getByLabel("New save name").fill("with-mods.zip");
    await also.check();
    await expect(dialog.getByTestId("restore-summary")).toHaveText(
      "Writes the new save with-mods.zip and replaces the whole mods folder (every mod, mod-list.json, mod-settings.dat). " +
        "It is backed up first.",
    );
    for (
      const [name, size] of [["phone", { width: 390, height: 844 }], ["desktop", {
        width: 1280,
        height: 800,
      }]] as const
    ) {
      await page.setViewportSize(size);
      await page.screenshot({ path: testInfo.outputPath(`restore-files-${name}.png`) });
    }
    await dialog.getByRole("button", { name: "Restore" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: "What it replaced was backed up first" }))
      .toBeVisible();
    expect(existsSync(join(mods, "installed-later_1.0.0.zip"))).toBe(false);
    expect(existsSync(join(mods, "kept_1.0.0.zip"))).toBe(true);
    await expect(page.getByTestId("backup-row").filter({ hasText: "Before restore" })).toHaveCount(1);
  },
);

test(
  "a viewer gets Backups and Schedules read-only with the role sentence; settings backups download for admins only",
  async ({ page, panel }, testInfo) => {
    test.setTimeout(180_000);
    const api = await adminApi(panel.url);
    const password = "e2e-role-password";
    for (const [username, role] of [["vic", "viewer"], ["olga", "operator"]]) {
      await api("POST", "/api/user/add", {
        username,
        role,
        email: `${username}@example.org`,
        password,
        password_confirmation: password,
      });
    }
    const secret = await api("POST", "/api/backups", { include: ["settings"] });
    const plain = await api("POST", "/api/backups", { include: ["players"] });
    await api("POST", "/api/schedules", {
      name: "Nightly save",
      cron: "0 4 * * *",
      condition: "always",
      enabled: true,
      tasks: [{ type: "save", delay_s: 0 }],
      run_missed: false,
    });

    await page.goto("/backups");
    await signIn(page, "vic", password);
    await expect(page.getByRole("heading", { name: "Backups", level: 1 })).toBeVisible();
    await expect(page.getByText(VIEWER_NOTE)).toBeVisible();
    await expect(page.getByRole("button", { name: "Back up now" })).toBeDisabled();
    await expect(page.getByRole("button", { name: `Lock ${secret.id}`, exact: true })).toBeDisabled();
    await expect(page.getByRole("button", { name: `Restore ${plain.id}`, exact: true })).toBeDisabled();
    await expect(page.getByRole("button", { name: `Delete ${plain.id}`, exact: true })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Save retention" })).toBeDisabled();
    // The server settings' backup: a disabled download and the reason on the page; the other downloads.
    await expect(page.getByRole("button", { name: `Download ${secret.id} (admins only)`, exact: true }))
      .toBeDisabled();
    await expect(page.getByText(BACKUP_MSG.downloadNeedsAdmin)).toBeVisible();
    const link = page.getByRole("link", { name: `Download ${plain.id}`, exact: true });
    expect((await page.request.get((await link.getAttribute("href"))!)).status()).toBe(200);
    expect((await page.request.get(`/api/backups/${secret.id}/download`)).status()).toBe(403);
    for (
      const [name, size] of [["phone", { width: 390, height: 844 }], ["desktop", {
        width: 1280,
        height: 800,
      }]] as const
    ) {
      await page.setViewportSize(size);
      await page.screenshot({ path: testInfo.outputPath(`backups-viewer-${name}.png`), fullPage: true });
    }

    await goToPage(page, "Schedules");
    const card = page.getByRole("region", { name: "Nightly save" });
    await expect(card).toContainText("every day at 04:00");
    await expect(page.getByText(VIEWER_NOTE)).toBeVisible();
    await expect(page.getByRole("button", { name: "New schedule" })).toBeDisabled();
    await expect(card.getByRole("button", { name: "Run Nightly save now" })).toBeDisabled();
    await expect(card.getByRole("button", { name: "Edit Nightly save" })).toBeDisabled();
    await expect(card.getByRole("button", { name: "Delete Nightly save" })).toBeDisabled();
    // The run history stays open to read.
    await card.getByRole("button", { name: /Last runs/ }).click();
    await expect(card.getByText("No runs yet.")).toBeVisible();
    for (
      const [name, size] of [["phone", { width: 390, height: 844 }], ["desktop", {
        width: 1280,
        height: 800,
      }]] as const
    ) {
      await page.setViewportSize(size);
      await page.screenshot({ path: testInfo.outputPath(`schedules-viewer-${name}.png`), fullPage: true });
    }

    // An operator works with backups, but the server settings' backup still downloads for admins only.
    await signOut(page);
    await page.goto("/backups");
    await signIn(page, "olga", password);
    await expect(page.getByRole("button", { name: "Back up now" })).toBeEnabled();
    await expect(page.getByText(VIEWER_NOTE)).toHaveCount(0);
    await expect(page.getByRole("button", { name: `Restore ${secret.id}`, exact: true })).toBeEnabled();
    await expect(page.getByRole("button", { name: `Download ${secret.id} (admins only)`, exact: true }))
      .toBeDisabled();
    await expect(page.getByText(BACKUP_MSG.downloadNeedsAdmin)).toBeVisible();
    await expect(page.getByRole("link", { name: `Download ${plain.id}`, exact: true })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("backups-operator-desktop.png"), fullPage: true });
  },
);
