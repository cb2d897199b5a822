// Roles per server in the browser (issue 49): on Users, each viewer's and operator's role per server; on
// Account, an API token limited to servers. While the panel lists no servers (GET /api/servers: 404) it
// has server 1 alone, named "Server 1".

import { addUser, adminApi, expect, goTo, signIn, test } from "./fixtures.ts";
import { ACCESS_MSG } from "../../shared/access.ts";

test.describe.configure({ timeout: 180_000 });

test("Users: a viewer's and an operator's role per server, changed from the list, at both widths", async ({ page, panel }) => {
  for (const [username, role] of [["olga", "operator"], ["vic", "viewer"], ["boss", "admin"]]) {
    await addUser(panel.url, username, role);
  }
  const api = await adminApi(panel.url);
  await page.goto("/");
  await signIn(page);
  await goTo(page, "Users");
  const olga = page.getByRole("group", { name: "Servers of olga" });
  await expect(olga.getByRole("combobox", { name: "Server 1" })).toHaveText("Operator", { timeout: 30_000 });
  // An admin has every server: no choices.
  await expect(page.getByRole("group", { name: "Servers of boss" })).toHaveCount(0);
  await page.screenshot({ path: "test-results/serverroles-users-1280.png", fullPage: true });

  const vic = page.getByRole("group", { name: "Servers of vic" });
  await vic.getByRole("combobox", { name: "Server 1" }).click();
  await page.getByRole("option", { name: "No access" }).click();
  await expect(page.getByText(ACCESS_MSG.serverRolesChanged("vic"))).toBeVisible();
  await expect(vic.getByRole("combobox", { name: "Server 1" })).toHaveText("No access");
  const list = await api("GET", "/api/user/list");
  expect(list.find((u: { username: string }) => u.username === "vic").servers).toEqual({});

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("table", { name: "Users" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/serverroles-users-390.png" });
  // Nothing wider than the phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("Account: an API token limited to servers (all by default), at both widths", async ({ page, panel }) => {
  await page.goto("/");
  await signIn(page);
  await goTo(page, "Account");
  const tokens = page.getByRole("region", { name: "API Tokens" });
  const form = tokens.getByRole("form", { name: "Create Token" });
  await expect(form.getByRole("combobox", { name: "Limit to servers" })).toHaveText("All servers", {
    timeout: 30_000,
  });
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/serverroles-token-1280.png" });
  await form.getByRole("combobox", { name: "Limit to servers" }).click();
  await page.getByRole("option", { name: "Server 1" }).click();
  await page.keyboard.press("Escape");
  await expect(form.getByRole("combobox", { name: "Limit to servers" })).toHaveText("Server 1");
  await form.getByLabel("Token name").fill("server one script");
  await form.getByRole("button", { name: "Create Token" }).click();
  await expect(tokens.getByText("only Server 1")).toBeVisible();
  const token = await tokens.getByLabel("New token").textContent();
  const status = await fetch(panel.url + "/api/server/status", {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(status.status).toBe(200);
  await status.body?.cancel();
  const api = await adminApi(panel.url);
  const listed = await api("GET", "/api/user/tokens");
  expect(listed.map((t: { name: string; servers: number[] | null }) => [t.name, t.servers])).toEqual([
    ["server one script", [1]],
  ]);
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/serverroles-token-made-1280.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/serverroles-token-390.png" });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
