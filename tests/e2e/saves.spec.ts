import { copyFileSync, existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, openSignedIn, test } from "./saves-fixtures.ts";
import { createFakeSave } from "./game-fixtures.ts";
import { adminApi, signIn } from "./fixtures.ts";
import { waitForServiceWorker } from "./push-fixtures.ts";
import { saveZip } from "../support/savefile.ts";
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

test(
  "create a save, upload one with the progress bar, download it byte for byte, delete it",
  async ({ page, factorio, scratch }, testInfo) => {
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
    await expect(page.getByTestId("flash").filter({ hasText: "Save My E2E World.zip created successfully." }))
      .toBeVisible();
    await expect(table.getByRole("row", { name: /My E2E World\.zip/ })).toContainText(
      /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/,
    );
    expect(existsSync(join(factorio.dir, "saves", "My E2E World.zip"))).toBe(true);

    // Upload: a 12 MB save through a slowed-down connection, watching the bar move.
    const file = join(scratch, "Uploaded World.zip");
    const bytes = await bigSave(file, 12);
    const upload = page.getByRole("form", { name: "Upload Save" });
    await upload.getByLabel("Savefile").setInputFiles(file);
    await expect(upload.getByTestId("chosen-file")).toContainText("Uploaded World.zip");
    await throttleUploads(page, 2 * 1024 * 1024);
    await upload.getByRole("button", { name: "Upload" }).click();
    const bar = upload.getByRole("progressbar", { name: "Upload progress" });
    await expect(bar).toBeVisible();
    await expect(bar).toHaveAttribute("aria-valuenow", /^([1-9]|[1-9]\d)$/, { timeout: 30_000 });
    // Bytes, speed and time left, once a second of the upload has been seen.
    await expect(upload.getByTestId("upload-progress"))
      .toHaveText(/^\d+ % · \d+\.\d{3} MB of 13\.\d{3} MB · \d+\.\d MB\/s · \d+ s left$/, {
        timeout: 30_000,
      });
    await page.screenshot({ path: testInfo.outputPath("desktop-upload-progress.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await upload.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath("phone-upload-progress.png") });
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.saveUploaded("Uploaded World.zip") }))
      .toBeVisible({ timeout: 60_000 });
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
    await expect(page.getByTestId("flash").filter({ hasText: "Removed save: Uploaded World.zip" }))
      .toBeVisible();
    await expect(row).toHaveCount(0);
    expect(existsSync(join(factorio.dir, "saves", "Uploaded World.zip"))).toBe(false);
  },
);

test("a file that is not a save is refused with the server's reason, and nothing is kept", async ({ page, factorio, scratch }) => {
  await openSignedIn(page, "/saves");
  const file = join(scratch, "notes.zip");
  writeFileSync(file, "just some text, not a zip");
  const upload = page.getByRole("form", { name: "Upload Save" });
  await upload.getByLabel("Savefile").setInputFiles(file);
  await upload.getByRole("button", { name: "Upload" }).click();
  await expect(
    page.getByTestId("flash").filter({ hasText: "notes.zip is not a Factorio save: it is not a zip file." }),
  ).toBeVisible();
  await expect(page.getByRole("table", { name: "Saves" }).getByRole("row", { name: /notes\.zip/ }))
    .toHaveCount(0);
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

  test(
    "while the server runs, creating shows the spec's text; the list still works",
    async ({ page, panel, gamePort }, testInfo) => {
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
      await expect(
        page.getByTestId("flash").filter({
          hasText: "Cannot delete phone world.zip: the running server has it loaded.",
        }),
      ).toBeVisible();
      await expect(table.getByRole("listitem").filter({ hasText: "phone world.zip" })).toBeVisible();

      expect((await page.request.get(`${panel.url}/api/server/stop`)).status()).toBe(200);
      await expect(page.getByRole("form", { name: "Create Save" })).toBeVisible({ timeout: 30_000 });
    },
  );
});

/** Three saves whose names, dates, sizes and versions each sort in another order. */
async function threeSaves(factorio: { dir: string }, make: (name: string, mtime: Date) => Promise<unknown>) {
  const dir = join(factorio.dir, "saves");
  copyFileSync(join(FIXTURES, "test_0_17.zip"), join(dir, "alpha.zip")); // 0.17.1, 539,711 bytes
  utimesSync(join(dir, "alpha.zip"), new Date("2024-01-01T08:30:00Z"), new Date("2024-01-01T08:30:00Z"));
  await make("beta.zip", new Date("2025-06-01T12:00:00Z")); // the simulator's 2.0.72, a few KB
  copyFileSync(join(FIXTURES, "test_1_1.zip"), join(dir, "gamma.zip")); // 1.1.6, 541,211 bytes
  utimesSync(join(dir, "gamma.zip"), new Date("2023-01-01T00:00:00Z"), new Date("2023-01-01T00:00:00Z"));
}

test(
  "each save's version and zoned time, sortable columns, and Start this save with the last start's address",
  async ({ page, panel, factorio, gamePort }, testInfo) => {
    test.setTimeout(180_000);
    await threeSaves(factorio, (name, mtime) => createFakeSave(factorio, name, { mtime }));
    // A start before: the server knows the address and port it used last.
    const api = await adminApi(panel.url);
    await api("POST", "/api/server/start", { bindip: "127.0.0.1", port: gamePort, savefile: "beta.zip" });
    await api("GET", "/api/server/stop");

    await openSignedIn(page, "/saves");
    const table = page.getByRole("table", { name: "Saves" });
    const names = () => table.getByRole("row").filter({ hasText: ".zip" }).locator("td:first-child");
    await expect(names()).toHaveText(["alpha.zip", "beta.zip", "gamma.zip"]);
    await expect(table.getByRole("columnheader")).toHaveText([
      "Name",
      "Last Modified At",
      "Size",
      "Version",
      "Actions",
    ]);
    await expect(table.getByRole("row", { name: /alpha\.zip/ })).toContainText("2024-01-01 08:30:00 UTC");
    await expect(table.getByRole("row", { name: /alpha\.zip/ })).toContainText("0.17.1");
    await expect(table.getByRole("row", { name: /beta\.zip/ })).toContainText("2.0.72");
    await expect(table.getByRole("row", { name: /gamma\.zip/ })).toContainText("1.1.6");

    // Each column sorts; a second click turns the order round. Load Latest stays last.
    const sortBy = (column: string) =>
      table.getByRole("columnheader", { name: column }).getByRole("button").click();
    await sortBy("Last Modified At");
    await expect(names()).toHaveText(["beta.zip", "alpha.zip", "gamma.zip"]);
    await sortBy("Last Modified At");
    await expect(names()).toHaveText(["gamma.zip", "alpha.zip", "beta.zip"]);
    await sortBy("Size");
    await expect(names()).toHaveText(["gamma.zip", "alpha.zip", "beta.zip"]);
    await sortBy("Size");
    await expect(names()).toHaveText(["beta.zip", "alpha.zip", "gamma.zip"]);
    await sortBy("Version");
    await expect(names()).toHaveText(["beta.zip", "gamma.zip", "alpha.zip"]);
    await sortBy("Name");
    await expect(names()).toHaveText(["alpha.zip", "beta.zip", "gamma.zip"]);
    await sortBy("Name");
    await expect(names()).toHaveText(["gamma.zip", "beta.zip", "alpha.zip"]);
    await expect(table.getByRole("row").last()).toContainText("Load Latest");

    // Start this save: it says where, then the server runs on it.
    await table.getByRole("button", { name: "Start beta.zip" }).click();
    const dialog = page.getByRole("dialog", { name: "Start this save" });
    await expect(dialog).toContainText(`The server starts on beta.zip, at 127.0.0.1:${gamePort}`);
    await page.screenshot({ path: testInfo.outputPath("desktop-start-confirm.png") });
    await dialog.getByRole("button", { name: "Start" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.serverStarted("beta.zip", gamePort) }))
      .toBeVisible({ timeout: 60_000 });
    const status = await api("GET", "/api/server/status");
    expect([status.status, status.savefile, status.bindip, status.port]).toEqual([
      "running",
      "beta.zip",
      "127.0.0.1",
      gamePort,
    ]);

    // While it runs: every Start is off, and the page says why.
    await expect(page.getByText("Starting a save needs the server stopped; it is running now."))
      .toBeVisible();
    for (const name of ["alpha.zip", "gamma.zip", "Load Latest"]) {
      await expect(table.getByRole("button", { name: `Start ${name}` })).toBeDisabled();
    }
    await page.screenshot({ path: testInfo.outputPath("desktop-saves-running.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const cards = page.getByRole("list", { name: "Saves" });
    await expect(cards.getByRole("listitem").filter({ hasText: "alpha.zip" })).toContainText(
      "2024-01-01 08:30:00 UTC",
    );
    await expect(cards.getByRole("listitem").filter({ hasText: "alpha.zip" })).toContainText(
      "Factorio 0.17.1",
    );
    await expect(cards.getByRole("button", { name: "Start alpha.zip" })).toBeDisabled();
    await page.screenshot({ path: testInfo.outputPath("phone-saves-running.png"), fullPage: true });
    await api("GET", "/api/server/stop");
    await expect(cards.getByRole("button", { name: "Start alpha.zip" })).toBeEnabled({ timeout: 30_000 });
  },
);

test.describe("on a phone, sorting", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the cards sort by the field chosen, either way", async ({ page, factorio }, testInfo) => {
    await threeSaves(factorio, (name, mtime) => createFakeSave(factorio, name, { mtime }));
    await openSignedIn(page, "/saves");
    const cards = page.getByRole("list", { name: "Saves" });
    const names = () => cards.getByRole("listitem").filter({ hasText: ".zip" }).locator("p:first-child");
    await expect(names()).toHaveText(["alpha.zip", "beta.zip", "gamma.zip"]);
    await page.getByLabel("Sort by").click();
    await page.getByRole("option", { name: "Version" }).click();
    await expect(names()).toHaveText(["beta.zip", "gamma.zip", "alpha.zip"]);
    await page.getByRole("button", { name: "Sort order: descending" }).click();
    await expect(names()).toHaveText(["alpha.zip", "gamma.zip", "beta.zip"]);
    await page.screenshot({ path: testInfo.outputPath("phone-saves-sorted.png"), fullPage: true });
  });
});

test(
  "a viewer sees Start this save turned off, with the role's sentence",
  async ({ page, panel, factorio }, testInfo) => {
    await createFakeSave(factorio, "world.zip");
    const api = await adminApi(panel.url);
    await api("POST", "/api/user/add", {
      username: "vera",
      role: "viewer",
      email: "vera@example.org",
      password: "e2e-viewer-password",
      password_confirmation: "e2e-viewer-password",
    });
    await page.goto("/saves");
    await signIn(page, "vera", "e2e-viewer-password");
    const table = page.getByRole("table", { name: "Saves" });
    await expect(table.getByRole("button", { name: "Start world.zip" })).toBeDisabled();
    await expect(table.getByRole("button", { name: "Start Load Latest" })).toBeDisabled();
    await expect(page.getByText("Your role (viewer) can look but not change anything here.")).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("desktop-saves-viewer.png"), fullPage: true });
  },
);

test(
  "offline: the last known list with its time, actions off, and no false 'no scenarios'",
  async ({ page, factorio }, testInfo) => {
    test.setTimeout(180_000);
    await createFakeSave(factorio, "world.zip");
    await openSignedIn(page, "/saves");
    await waitForServiceWorker(page);
    const table = page.getByRole("table", { name: "Saves" });
    await expect(table.getByRole("row", { name: /world\.zip/ })).toBeVisible();
    await expect(page.getByRole("form", { name: "Start on a scenario" })).toBeVisible();

    // The connection goes while the page is open: the list stays, saying it is the last known one.
    await page.context().setOffline(true);
    const note = page.getByTestId("saves-offline");
    await expect(note).toHaveText(
      /^Offline: this is the list as it was at \d\d:\d\d; it may have changed since, and its actions need a connection\.$/,
      { timeout: 30_000 },
    );
    await expect(table.getByRole("row", { name: /world\.zip/ })).toBeVisible();
    await expect(table.getByRole("button", { name: "Start world.zip" })).toBeDisabled();
    await expect(table.getByRole("button", { name: "Delete world.zip" })).toBeDisabled();
    const create = page.getByRole("form", { name: "Create Save" });
    await expect(create.getByRole("button", { name: "Create Save" })).toBeDisabled();
    await expect(page.getByRole("form", { name: "Upload Save" }).getByRole("button", { name: "Upload" }))
      .toBeDisabled();
    await expect(create.getByText("Offline: creating a save needs a connection to the panel.")).toBeVisible();
    await expect(
      page.getByRole("form", { name: "Upload Save" }).getByText(
        "Offline: uploading needs a connection to the panel.",
      ),
    ).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("desktop-saves-offline-open.png"), fullPage: true });

    // Opened offline from the app's cache: nothing known, and the page says so.
    await page.goto("/saves");
    await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toBeVisible();
    await expect(note).toHaveText("Offline: the saves are shown when the panel can be reached.");
    await expect(page.getByText("Offline: the scenarios are shown when the panel can be reached."))
      .toBeVisible();
    await expect(page.getByText("The game and the installed mods offer no scenarios.")).toHaveCount(0);
    await expect(page.getByRole("form", { name: "Create Save" }).getByRole("button", { name: "Create Save" }))
      .toBeDisabled();
    await expect(
      page.getByRole("form", { name: "Create Save" }).getByRole("button", { name: "More options" }),
    ).toBeDisabled();
    await expect(page.getByRole("form", { name: "Upload Save" }).getByRole("button", { name: "Upload" }))
      .toBeDisabled();
    await page.screenshot({ path: testInfo.outputPath("desktop-saves-offline-cold.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: testInfo.outputPath("phone-saves-offline-cold.png"), fullPage: true });

    // Back online: the page finds out by itself and loads what it could not.
    await page.context().setOffline(false);
    await expect(note).toBeHidden({ timeout: 30_000 });
    await expect(
      page.getByRole("list", { name: "Saves" }).getByRole("listitem").filter({ hasText: "world.zip" }),
    ).toBeVisible();
    await expect(page.getByRole("form", { name: "Start on a scenario" })).toBeVisible();
  },
);
