// The first-run import: a new panel (first sign-in with the generated password) takes over the old panel's
// directory (preview, then import) or an archive made with --export, from the browser.

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, ROOT, signIn, signOut, startPanelProcess, test } from "./fixtures.ts";
import { spawnPanel } from "../../scripts/launcher.mjs";
import type { Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";

const SHOTS = "test-results/e2e/import";

/** axe-core's WCAG 2.x A/AA rules (as newcomer.spec.ts checks every page); serious and critical fail. */
async function seriousViolations(page: Page): Promise<string[]> {
  // A flash fading in or out is measured half-transparent: check the page once the notices are gone.
  await expect(page.getByTestId("flash")).toHaveCount(0);
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) =>
    `${v.id}: ${v.help} at ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`
  );
}

/** A new panel whose admin still has the generated password. */
async function freshPanel() {
  const panel = await startPanelProcess({ env: { PANEL_ADMIN_PASSWORD: "" } });
  return { panel, password: readFileSync(join(panel.dataDir, "initial-admin-password"), "utf8").trim() };
}

function oldPanelCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "old-panel-"));
  cpSync(join(ROOT, "tests/fixtures/old-panel"), dir, { recursive: true });
  return dir;
}

test("a new panel imports the old panel's directory: preview, import, sign in with the old password", async ({ page }) => {
  const old = oldPanelCopy();
  const { panel, password } = await freshPanel();
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${panel.url}/`);
    await signIn(page, "admin", password);
    await page.getByTestId("generated-password").getByRole("link", { name: "Import its users and settings" })
      .click();
    await expect(page.getByRole("heading", { name: "Import from another panel", level: 1 })).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/phone-import.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    const form = page.getByRole("form", { name: "Import from the old panel" });
    await form.getByRole("button", { name: "Preview" }).click();
    await expect(form.getByText("Enter the folder of the old panel")).toBeVisible();
    // A wrong folder: said in words, in the form, where it stays until the next try (not a flash).
    await form.getByLabel("Folder of the old panel").fill(join(old, "nowhere"));
    await form.getByRole("button", { name: "Preview" }).click();
    const failure = form.getByRole("alert");
    await expect(failure).toHaveText(
      `Nothing was imported. There is no folder ${join(old, "nowhere")} on the panel's machine.`,
    );
    await form.getByLabel("Folder of the old panel").fill(join(old, "mod_packs"));
    await expect(failure).toHaveCount(0);
    await form.getByRole("button", { name: "Preview" }).click();
    await expect(failure).toContainText(
      `There is no conf.json in ${join(old, "mod_packs")}, so it is not the old panel's folder.`,
    );
    await expect(failure).not.toContainText("ENOENT");
    await expect(page.getByTestId("flash")).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/phone-failure.png`, fullPage: true });

    await form.getByLabel("Folder of the old panel").fill(old);
    await form.getByRole("button", { name: "Preview" }).click();
    const preview = form.getByLabel("What would be imported");
    await expect(preview).toContainText("user bob (operator): would import");
    await expect(preview).toContainText("user admin (admin): would import");
    await expect(preview).toContainText("mod pack weekend: would import");
    await page.screenshot({ path: `${SHOTS}/phone-preview.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    // Buttons say what they do: no two named "Import".
    await expect(form.getByRole("button", { name: "Import", exact: true })).toHaveCount(0);
    // A preview changes nothing: still one user, still the generated password.
    const users = await page.request.get(`${panel.url}/api/user/list`);
    expect((await users.json()).map((u: { username: string }) => u.username)).toEqual(["admin"]);
    expect(existsSync(join(panel.dataDir, "initial-admin-password"))).toBe(true);

    await form.getByRole("button", { name: "Import from this folder" }).click();
    const done = page.getByLabel("What was imported");
    await expect(done).toContainText("user bob (operator): imported");
    await expect(page.getByText("The admin account now has the old panel's password")).toBeVisible();
    await expect(page.getByTestId("generated-password")).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/phone-imported.png`, fullPage: true });
    // The importing session stays; the old password is the admin's now.
    await page.getByRole("button", { name: "Go to Controls" }).click();
    await expect(page).toHaveURL(new RegExp(`${panel.url}/$`));
    await signOut(page);
    await signIn(page, "admin", "old admin password");
    await expect(page).not.toHaveURL(/\/login$/);
    await expect(page.getByTestId("generated-password")).toHaveCount(0);
    // Set up now: the import is not offered any more.
    await page.goto(`${panel.url}/import`);
    await expect(page.getByText("This panel is already set up")).toBeVisible();
    const again = await page.request.post(`${panel.url}/api/import/old-panel`, {
      data: { dir: old },
      headers: { Origin: panel.url },
    });
    expect(again.status()).toBe(409);
  } finally {
    await panel.stop();
    rmSync(old, { recursive: true, force: true });
  }
});

test("a new panel imports an export archive: users get new passwords shown once; a damaged archive changes nothing", async ({ page }) => {
  const work = mkdtempSync(join(tmpdir(), "import-archive-"));
  const old = oldPanelCopy();
  // The old host: a panel with the old panel's users and pack, exported with the CLI.
  const source = await startPanelProcess({ dataDir: join(work, "source"), args: ["--import-fsm", old] });
  await source.stop();
  const archive = join(work, "panel-export.zip");
  const code = await new Promise<number | null>((resolve) => {
    const child = spawnPanel(["--data-dir", join(work, "source"), "--export", archive], { stdio: "ignore" });
    child.on("exit", resolve);
  });
  expect(code).toBe(0);
  const damaged = join(work, "damaged.zip");
  const bytes = readFileSync(archive);
  writeFileSync(damaged, bytes.subarray(0, bytes.length - 100));

  const { panel, password } = await freshPanel();
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${panel.url}/import`);
    await signIn(page, "admin", password);
    const form = page.getByRole("form", { name: "Import an export archive" });
    await expect(form).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/desktop-import.png`, fullPage: true });
    await expect(page.getByRole("button", { name: "Import", exact: true })).toHaveCount(0);
    await form.getByRole("button", { name: "Upload and import" }).click();
    await expect(form.getByText("Choose the export archive (.zip) to import.")).toBeVisible();

    await form.getByLabel("Export archive").setInputFiles(damaged);
    await form.getByRole("button", { name: "Upload and import" }).click();
    await expect(
      form.getByRole("alert").filter({ hasText: "The archive cannot be imported: it is not a readable zip" }),
    ).toBeVisible();
    await expect(page.getByTestId("flash")).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/desktop-failure.png`, fullPage: true });
    const users = await page.request.get(`${panel.url}/api/user/list`);
    expect((await users.json()).map((u: { username: string }) => u.username)).toEqual(["admin"]);

    await form.getByLabel("Export archive").setInputFiles(archive);
    await expect(form.getByRole("alert")).toHaveCount(0);
    await form.getByRole("button", { name: "Upload and import" }).click();
    await expect(page.getByLabel("What was imported")).toContainText("user bob (operator): imported");
    await expect(page.getByLabel("What was imported")).toContainText("mod pack weekend: imported");
    const shown = page.getByTestId("new-passwords");
    await expect(shown).toContainText("bob: ");
    await page.screenshot({ path: `${SHOTS}/desktop-imported.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    const bob = /bob: (\S+)/.exec(await shown.innerText())![1];
    // The signed-in admin kept its password (the archive had none) and stays signed in.
    await page.getByRole("button", { name: "Go to Controls" }).click();
    await expect(page).not.toHaveURL(/\/login$/);
    // Still the generated password, but the panel is set up now: the notice no longer offers the import.
    await expect(page.getByTestId("generated-password")).toBeVisible();
    await expect(page.getByRole("link", { name: "Import its users and settings" })).toHaveCount(0);
    const login = await page.request.post(`${panel.url}/api/login`, {
      data: { username: "bob", password: bob },
      headers: { Origin: panel.url },
    });
    expect(login.status()).toBe(200);
  } finally {
    await panel.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
});
