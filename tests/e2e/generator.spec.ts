// The world generator from the browser on a simulated Factorio 2.0 with Space Age: More options opens it,
// the game renders a first preview, a resource is changed and previewed again, the world is created with
// those settings (the simulator keeps them in the save), and the server starts on it. Screenshots of the
// generator at phone and desktop width go to test-results/generator-*.png.

import { join } from "node:path";
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { createFakeSave, expect as baseExpect, test } from "./game-fixtures.ts";

// The game runs several times per test: waits are generous, so a loaded machine does not fail them.
const expect = baseExpect.configure({ timeout: 30_000 });
import { openSignedIn } from "./fixtures.ts";
import type { SaveState } from "../fake-factorio/savefile.ts";
import { spawnSync } from "node:child_process";
import { DENO, PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";
import { ROOT } from "./fixtures.ts";

test.use({ gameSaves: [] });

/** What a save holds, read by the simulator's own reader under Deno (it uses Deno's files; this runs under Node). */
function readSave(path: string): { state: SaveState; levelBytes: number } {
  const r = spawnSync(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    "--no-prompt",
    join(ROOT, "tests/fake-factorio/savefile.ts"),
    path,
  ], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`could not read ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const flash = (page: Page, text: string | RegExp) => page.getByTestId("flash").filter({ hasText: text });

for (
  const [label, viewport] of [["phone", { width: 390, height: 844 }], ["desktop", {
    width: 1280,
    height: 800,
  }]] as const
) {
  test(`generator at ${label} width: preview, change a resource, create, start`, async ({ page, factorio, gamePort }) => {
    test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
    await page.setViewportSize(viewport);
    await openSignedIn(page, "/saves");
    const form = page.getByRole("form", { name: "Create Save" });
    await form.getByLabel("Savefile Name").fill(`World ${label}`);
    await form.getByRole("button", { name: "More options" }).click();
    const dialog = page.getByRole("dialog", { name: "New world" });
    await expect(dialog.getByLabel("Preset")).toBeVisible({ timeout: 90_000 });
    await expect(dialog.getByRole("tab", { name: "Vulcanus" })).toBeVisible();
    const img = dialog.getByRole("img", { name: "Map preview of Nauvis" });
    await expect(img).toBeVisible({ timeout: 90_000 });
    const first = await img.getAttribute("src");
    await page.screenshot({ path: join(ROOT, `test-results/generator-${label}.png`), fullPage: false });

    // A richer, more frequent iron ore: the preview changes.
    const iron = dialog.getByRole("list", { name: "Controls of Nauvis" }).getByRole("listitem").filter({
      hasText: "Iron ore",
    });
    await iron.getByLabel("Frequency").fill("3");
    await iron.getByLabel("Size").fill("2");
    await dialog.getByRole("button", { name: "Preview Nauvis" }).click();
    await expect(img).not.toHaveAttribute("src", first!, { timeout: 90_000 });

    // Another planet's controls and preview.
    await dialog.getByRole("tab", { name: "Vulcanus" }).click();
    await expect(dialog.getByRole("list", { name: "Controls of Vulcanus" }).getByText("Tungsten ore"))
      .toBeVisible();
    await dialog.getByRole("tab", { name: "Nauvis" }).click();

    await dialog.getByLabel("Seed").fill("4242");
    await dialog.getByRole("button", { name: "Create world" }).click();
    await expect(flash(page, `Save World ${label}.zip created successfully`)).toBeVisible({
      timeout: 90_000,
    });
    await expect(dialog).toBeHidden();
    const { state } = readSave(join(factorio.dir, "saves", `World ${label}.zip`));
    expect(state.seed).toBe(4242);
    expect((state.map_gen_settings!.autoplace_controls as Record<string, unknown>)["iron-ore"]).toEqual({
      frequency: 3,
      size: 2,
      richness: 1,
    });

    // Start the server on the new world.
    await page.goto("/");
    const start = page.getByRole("form", { name: "Start Server" });
    await start.getByLabel("IP").fill("127.0.0.1");
    await start.getByLabel("Port").fill(String(gamePort));
    await start.getByRole("combobox").click();
    await page.getByRole("option", { name: `World ${label}.zip` }).click();
    await start.getByRole("button", { name: "Start Server" }).click();
    await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 90_000 });
    await expect(page.getByTestId("server-save")).toHaveText(`World ${label}.zip`);
  });
}

test("exchange string: paste one to fill the form, copy the form as one", async ({ page }) => {
  test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
  await openSignedIn(page, "/saves");
  await page.getByRole("form", { name: "Create Save" }).getByRole("button", { name: "More options" }).click();
  const dialog = page.getByRole("dialog", { name: "New world" });
  await expect(dialog.getByLabel("Preset")).toBeVisible({ timeout: 90_000 });
  const text = readFileSync(join(ROOT, "tests/fixtures/exchange-strings/2.0.76.txt"), "utf8");
  await dialog.getByRole("textbox", { name: "Map exchange string" }).fill(text);
  await dialog.getByRole("button", { name: "Use this string" }).click();
  await expect(dialog.getByText("Settings of a Factorio 2.0.76.0 map applied.")).toBeVisible();
  await expect(dialog.getByLabel("Seed")).toHaveValue("932326217");
  await dialog.getByRole("button", { name: "Copy settings as a string" }).click();
  await expect(dialog.getByRole("textbox", { name: "Map exchange string" })).toHaveValue(/^>>>eN/);
});

test("start the server on a scenario from the Saves page", async ({ page, gamePort }) => {
  test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
  await openSignedIn(page, "/saves");
  const form = page.getByRole("form", { name: "Start on a scenario" });
  await expect(form.getByLabel("Scenario")).toHaveText(/base\/freeplay/);
  await form.getByLabel("IP").fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(gamePort));
  await form.getByRole("button", { name: "Start server on scenario" }).click();
  await expect(flash(page, `Server started on the scenario base/freeplay, port ${gamePort}.`)).toBeVisible({
    timeout: 90_000,
  });
  await page.screenshot({ path: join(ROOT, "test-results/scenarios-desktop.png"), fullPage: true });
  await page.goto("/");
  await expect(page.getByTestId("server-state")).toHaveText("Running");
});

for (
  const [label, viewport] of [["phone", { width: 390, height: 844 }], ["desktop", {
    width: 1280,
    height: 800,
  }]] as const
) {
  test(`a scenario becomes a save at ${label} width: name asked, progress, the save listed; a taken name is replaced only when asked`, async ({ page, factorio }) => {
    test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
    await page.setViewportSize(viewport);
    await openSignedIn(page, "/saves");
    const form = page.getByRole("form", { name: "Start on a scenario" });
    await expect(form.getByLabel("Scenario")).toHaveText(/base\/freeplay/);
    await form.getByRole("button", { name: "Create save" }).click();
    const dialog = page.getByRole("dialog", { name: "Create a save from base/freeplay" });
    await expect(dialog.getByLabel("Save name")).toHaveValue("freeplay");
    await dialog.getByLabel("Save name").fill(`Arena ${label}`);
    await page.screenshot({ path: join(ROOT, `test-results/scenario-save-${label}.png`), fullPage: false });
    // The dialog: no serious or critical axe finding; on a phone, its buttons and its input box (the field,
    // not the bare <input> inside it) are 44 px tall.
    const axe = await new AxeBuilder({ page }).include('[role="dialog"]').withTags([
      "wcag2a",
      "wcag2aa",
      "wcag21a",
      "wcag21aa",
    ]).analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id))
      .toEqual([]);
    if (label === "phone") {
      for (
        const control of [...await dialog.getByRole("button").all(), dialog.locator(".MuiInputBase-root")]
      ) {
        expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(43.5);
      }
    }
    await dialog.getByRole("button", { name: "Create save" }).click();
    await expect(flash(page, `Save Arena ${label}.zip created from the scenario base/freeplay.`)).toBeVisible(
      { timeout: 90_000 },
    );
    await expect(dialog).toBeHidden();
    // A table on a desktop, a list on a phone: the new save's name is in it either way.
    await expect(page.getByRole("region", { name: "Saves" }).getByText(`Arena ${label}.zip`, { exact: true }))
      .toBeVisible();
    expect(readSave(join(factorio.dir, "saves", `Arena ${label}.zip`)).state.scenario).toBe("base/freeplay");

    // The same name again: the panel says it is taken, and replaces it only when asked.
    await form.getByRole("button", { name: "Create save" }).click();
    await dialog.getByLabel("Save name").fill(`Arena ${label}`);
    await dialog.getByRole("button", { name: "Create save" }).click();
    await expect(dialog.getByText(`A save named Arena ${label}.zip already exists.`, { exact: false }))
      .toBeVisible({ timeout: 90_000 });
    await page.screenshot({
      path: join(ROOT, `test-results/scenario-save-taken-${label}.png`),
      fullPage: false,
    });
    await dialog.getByRole("button", { name: "Replace it" }).click();
    await expect(flash(page, `Save Arena ${label}.zip created from the scenario base/freeplay.`)).toBeVisible(
      { timeout: 90_000 },
    );
    await expect(dialog).toBeHidden();
    await page.screenshot({
      path: join(ROOT, `test-results/scenario-save-done-${label}.png`),
      fullPage: true,
    });

    // A game that takes its time: the dialog shows that it works, and cannot be closed meanwhile.
    renameSync(factorio.binary, factorio.binary + ".real");
    writeFileSync(factorio.binary, `#!/bin/sh\nFAKE_FACTORIO_STARTUP_MS=4000 exec "$0.real" "$@"\n`);
    chmodSync(factorio.binary, 0o755);
    await form.getByRole("button", { name: "Create save" }).click();
    await dialog.getByLabel("Save name").fill(`Slow ${label}`);
    await dialog.getByRole("button", { name: "Create save" }).click();
    await expect(dialog.getByRole("status").getByText("The game is making the map…")).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeDisabled();
    await page.screenshot({
      path: join(ROOT, `test-results/scenario-save-progress-${label}.png`),
      fullPage: false,
    });
    await expect(flash(page, `Save Slow ${label}.zip created from the scenario base/freeplay.`)).toBeVisible({
      timeout: 90_000,
    });
  });
}

test(
  "the generator says why it shows only the example settings: stopped with a game that cannot dump its data, and running",
  async ({ page, factorio, gamePort }, testInfo) => {
    test.setTimeout(300_000); // runs the game several times; generous on a loaded machine
    // The game cannot load its mods, so its --dump-data fails: the server is stopped all the same.
    const modList = join(factorio.dir, "mods", "mod-list.json");
    writeFileSync(modList, "{ not json");
    await page.setViewportSize({ width: 390, height: 844 });
    await openSignedIn(page, "/saves");
    await page.getByRole("form", { name: "Create Save" }).getByRole("button", { name: "More options" })
      .click();
    const dialog = page.getByRole("dialog", { name: "New world" });
    const notice = dialog.getByRole("alert").filter({ hasText: "example settings" });
    await expect(notice).toBeVisible({ timeout: 90_000 });
    await expect(notice).toContainText("The game could not list its presets and planets");
    await expect(notice).not.toContainText("only while the server is stopped");
    await page.screenshot({
      path: testInfo.outputPath("generator-examples-stopped-phone.png"),
      fullPage: false,
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({
      path: testInfo.outputPath("generator-examples-stopped-desktop.png"),
      fullPage: false,
    });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();

    // Running, with the dialog open: no preview, no create, and the game is not asked, which the notice says.
    rmSync(modList);
    await createFakeSave(factorio, "world.zip");
    await page.getByRole("form", { name: "Create Save" }).getByRole("button", { name: "More options" })
      .click();
    // The first preview holds the game directory; the start waits for it to be done.
    await expect(dialog.getByRole("img", { name: "Map preview of Nauvis" })).toBeVisible({ timeout: 90_000 });
    const started = await page.request.post("/api/server/start", {
      data: { bindip: "127.0.0.1", port: gamePort, savefile: "world.zip" },
    });
    expect(started.status(), await started.text()).toBe(200);
    await expect(dialog.getByText("The game renders previews while the server is stopped.")).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Create world" })).toBeDisabled();
    await page.screenshot({ path: testInfo.outputPath("generator-running.png"), fullPage: false });
    // Other mods than the data dump was made with: the running game cannot be asked for a new one.
    writeFileSync(modList, JSON.stringify({ mods: [{ name: "base", enabled: true }] }));
    const info = await (await page.request.get("/api/world/generator")).json();
    expect(info.source).toBe("examples");
    expect(info.examples_reason).toMatch(/only while the server is stopped/);
  },
);
