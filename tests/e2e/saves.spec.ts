import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, openSignedIn, test } from "./saves-fixtures.ts";
import { saveZip } from "../../backend/testing/savefile.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import type { Page } from "@playwright/test";

const FIXTURES = resolve(import.meta.dirname, "../fixtures/saves");

/** A real save (the 2.0 Space Age header) padded with a stored map chunk, so the upload takes a while. */
async function bigSave(path: string, megabytes: number): Promise<Uint8Array> {
  const filler = new Uint8Array(megabytes * 1024 * 1024);
  for (let i = 0; i < filler.length; i += 4096) filler[i] = (i / 4096) & 0xff;
  const bytes = await saveZip({
    "level-init.dat": new Uint8Array(readFileSync(join(FIXTURES, "2_0_spaceage.level-init.dat"))),
    "level.dat0": filler,
  }, { folder: "uploaded", method: "store" });
  writeFileSync(path, bytes);
  return bytes;
}

/** Slows the browser's uploads down, so the progress bar can be seen moving. */
async function throttleUploads(page: Page, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}

test.use({ viewport: { width: 1280, height: 800 } });

test("create a save, upload one with the progress bar, download it byte for byte, delete it", async ({ page, factorio, scratch }, testInfo) => {
  await openSignedIn(page, "/saves");
  await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toBeVisible();
  const table = page.getByRole("table", { name: "Saves" });
  await expect(table.getByRole("row", { name: /Load Latest/ })).toBeVisible();

  // Create: the game's --create makes the map.
  const create = page.getByRole("form", { name: "Create Save" });
  await create.getByRole("button", { name: "Create Save" }).click();
  await expect(create.getByText(MSG.savefileNameRequired)).toBeVisible();
  await create.getByLabel("Savefile Name").fill("My E2E World");
  await create.getByRole("button", { name: "Create Save" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "Save My E2E World.zip created successfully." })).toBeVisible();
  await expect(table.getByRole("row", { name: /My E2E World\.zip/ })).toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
  expect(existsSync(join(factorio.dir, "saves", "My E2E World.zip"))).toBe(true);

  // Upload: a 12 MB save through a slowed-down connection, watching the bar move.
  const file = join(scratch, "Uploaded World.zip");
  const bytes = await bigSave(file, 12);
  const upload = page.getByRole("form", { name: "Upload Save" });
  await upload.getByLabel("Savefile").setInputFiles(file);
  await expect(upload.getByTestId("chosen-file")).toContainText("Uploaded World.zip");
  await throttleUploads(page, 3 * 1024 * 1024);
  await upload.getByRole("button", { name: "Upload" }).click();
  const bar = upload.getByRole("progressbar", { name: "Upload progress" });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute("aria-valuenow", /^([1-9]|[1-9]\d)$/, { timeout: 30_000 });
  await page.screenshot({ path: testInfo.outputPath("desktop-upload-progress.png"), fullPage: true });
  await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.saveUploaded("Uploaded World.zip") })).toBeVisible({ timeout: 60_000 });
  await expect(bar).toBeHidden();
  await throttleUploads(page, -1);
  const row = table.getByRole("row", { name: /Uploaded World\.zip/ });
  await expect(row).toContainText(`${(bytes.length / 1024 / 1024).toFixed(3)} MB`);
  await page.screenshot({ path: testInfo.outputPath("desktop-saves.png"), fullPage: true });

  // Download: the same bytes come back, under the same name.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    row.getByRole("link", { name: "Download Uploaded World.zip" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("Uploaded World.zip");
  const got = join(scratch, "downloaded.zip");
  await download.saveAs(got);
  expect(Buffer.compare(readFileSync(got), Buffer.from(bytes))).toBe(0);

  // Delete: asks first; Cancel keeps it, Delete removes it.
  await row.getByRole("button", { name: "Delete Uploaded World.zip" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(PANEL_MSG.saveDeleteConfirm("Uploaded World.zip"));
  await page.screenshot({ path: testInfo.outputPath("desktop-delete-confirm.png") });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toBeVisible();
  await row.getByRole("button", { name: "Delete Uploaded World.zip" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "Removed save: Uploaded World.zip" })).toBeVisible();
  await expect(row).toHaveCount(0);
  expect(existsSync(join(factorio.dir, "saves", "Uploaded World.zip"))).toBe(false);
});

test("a file that is not a save is refused with the server's reason, and nothing is kept", async ({ page, factorio, scratch }) => {
  await openSignedIn(page, "/saves");
  const file = join(scratch, "notes.zip");
  writeFileSync(file, "just some text, not a zip");
  const upload = page.getByRole("form", { name: "Upload Save" });
  await upload.getByLabel("Savefile").setInputFiles(file);
  await upload.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "notes.zip is not a Factorio save: it is not a zip file." })).toBeVisible();
  await expect(page.getByRole("table", { name: "Saves" }).getByRole("row", { name: /notes\.zip/ })).toHaveCount(0);
  expect(existsSync(join(factorio.dir, "saves", "notes.zip"))).toBe(false);
});

test("a create the game fails keeps the game's output on the page", async ({ page, factorio }, testInfo) => {
  writeFileSync(join(factorio.dir, "mods", "mod-list.json"), "{ not json");
  await openSignedIn(page, "/saves");
  const create = page.getByRole("form", { name: "Create Save" });
  await create.getByLabel("Savefile Name").fill("doomed");
  await create.getByRole("button", { name: "Create Save" }).click();
  const alert = create.getByRole("alert");
  await expect(alert).toContainText("Error creating save doomed.zip: exit status 1");
  await expect(alert).toContainText("Failed to load mods");
  await expect(create.getByRole("button", { name: "Create Save" })).toBeEnabled();
  await page.screenshot({ path: testInfo.outputPath("desktop-create-failed.png"), fullPage: true });
  expect(existsSync(join(factorio.dir, "saves", "doomed.zip"))).toBe(false);
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("while the server runs, creating shows the spec's text; the list still works", async ({ page, panel, gamePort }, testInfo) => {
    await openSignedIn(page, "/saves");
    const create = page.getByRole("form", { name: "Create Save" });
    await create.getByLabel("Savefile Name").fill("phone world");
    await create.getByRole("button", { name: "Create Save" }).click();
    // On a phone the saves are a card list, so nothing is cut off at the right.
    const table = page.getByRole("list", { name: "Saves" });
    await expect(table.getByRole("listitem").filter({ hasText: "phone world.zip" })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("phone-saves.png"), fullPage: true });

    const started = await page.request.post(`${panel.url}/api/server/start`, {
      data: { bindip: "127.0.0.1", port: gamePort, savefile: "phone world.zip" },
    });
    expect(started.status()).toBe(200);
    await expect(page.getByText(MSG.createSaveWhileRunning)).toBeVisible();
    await expect(page.getByRole("form", { name: "Create Save" })).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath("phone-saves-running.png"), fullPage: true });
    // The loaded save is protected while the game runs.
    await table.getByRole("button", { name: "Delete phone world.zip" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: "Cannot delete phone world.zip: the running server has it loaded." })).toBeVisible();
    await expect(table.getByRole("listitem").filter({ hasText: "phone world.zip" })).toBeVisible();

    expect((await page.request.get(`${panel.url}/api/server/stop`)).status()).toBe(200);
    await expect(page.getByRole("form", { name: "Create Save" })).toBeVisible({ timeout: 30_000 });
  });
});
