// Roles, two-factor sign-in and passkeys in the browser: an operator runs the server but has no user
// management; a viewer reads the console but cannot send; TOTP set up from the QR page; passkeys made
// and used with Chromium's virtual authenticator (DevTools WebAuthn domain).

import * as OTPAuth from "otpauth";
import type { Page } from "@playwright/test";
import { expect, test } from "./game-fixtures.ts";
import { addUser, adminApi, goTo, ROLE_PASSWORD, signIn, signOut } from "./fixtures.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

const PASSWORD = ROLE_PASSWORD;

// Several sign-ins, a game start or two, lazy pages: generous budgets for a machine shared by many jobs.
test.describe.configure({ timeout: 240_000 });

async function startFromControls(page: Page, port: number): Promise<void> {
  const form = page.getByRole("form", { name: "Start Server" });
  await form.getByLabel("IP").fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(port));
  await form.getByRole("button", { name: "Start Server" }).click();
  await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 30_000 });
}

test("an operator restarts the server but cannot open user management", async ({ page, panel, gamePort }) => {
  await addUser(panel.url, "olga", "operator");
  await page.goto("/");
  await signIn(page, "olga", PASSWORD);
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible({ timeout: 30_000 });
  await startFromControls(page, gamePort);
  // Restart: save & stop, then start again.
  await page.getByRole("button", { name: "Save & Stop Server" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.serverStopped })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByTestId("server-state")).toHaveText("Stopped");
  await startFromControls(page, gamePort);
  // The restart route, called from the operator's signed-in page.
  const restarted = await page.evaluate(async () => {
    const r = await fetch("/api/server/restart", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    return r.status;
  });
  expect(restarted).toBe(200);
  await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 30_000 });
  await page.screenshot({ path: "test-results/access-operator-controls-1280.png" });

  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Users" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "Activity" })).toHaveCount(0);
  await page.goto("/user-management");
  await expect(page.getByText("Only admins manage panel users.")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/access-operator-users-390.png" });
  await expect(page.getByRole("form", { name: "Create User" })).toHaveCount(0);
  // The server says the same to a request made by hand.
  const status = await page.evaluate(async () => (await fetch("/api/user/list")).status);
  expect(status).toBe(403);

  // What the operator did is in the admin's activity log.
  const api = await adminApi(panel.url);
  const log = await api("GET", "/api/activity?user=olga");
  expect(log.map((e: { action: string }) => e.action).slice(0, 4)).toEqual([
    "POST /api/server/restart",
    "POST /api/server/start",
    "GET /api/server/stop",
    "POST /api/server/start",
  ]);
});

test("a viewer sees the console but cannot send", async ({ page, panel, gamePort }) => {
  await addUser(panel.url, "vic", "viewer");
  const api = await adminApi(panel.url);
  await api("POST", "/api/server/start", { bindip: "127.0.0.1", port: gamePort, savefile: "world.zip" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await signIn(page, "vic", PASSWORD);
  await expect(page.getByTestId("server-state")).toHaveText("Running");
  await expect(page.getByRole("button", { name: "Save & Stop Server" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Kill Server" })).toBeDisabled();

  await goTo(page, "Console");
  const log = page.getByRole("log", { name: "Game log" });
  await expect(log).toContainText("Hosting game at IP ADDR");
  await expect(page.getByLabel("Command")).toHaveCount(0);
  await expect(page.getByText(ACCESS_MSG.consoleNotAllowed)).toBeVisible();
  await page.screenshot({ path: "test-results/access-viewer-console-390.png" });

  // A command sent by hand over the socket is refused by the server, and the console says so.
  await page.evaluate(() => {
    const ws = new WebSocket(location.origin.replace(/^http/, "ws") + "/ws");
    ws.onopen = () =>
      ws.send(JSON.stringify({ room_name: "", controls: { type: "command", value: "/ban alice" } }));
  });
  await expect.poll(async () => (await api("GET", "/api/activity?action=console"))[0]?.status).toBe(403);
  await expect(log).not.toContainText("vic> /ban alice");
});

test("TOTP: set up from the QR page, then sign-in asks for a code; recovery codes shown once", async ({ page, panel }) => {
  await page.goto("/");
  await signIn(page);
  await goTo(page, "Account");
  await page.getByRole("button", { name: "Set Up Authenticator App" }).click();
  await expect(page.getByRole("img", { name: "QR code for the authenticator app" })).toBeVisible();
  const secret = (await page.getByLabel("Setup key").textContent())!.trim();
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  await page.screenshot({ path: "test-results/access-totp-setup-1280.png", fullPage: true });
  await page.getByLabel("Code", { exact: true }).fill(totp.generate());
  // On a phone: each recovery code stays whole on one line (they broke at the dash).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Turn On" }).click();
  const list = page.getByRole("list", { name: "Recovery codes" });
  const codes = list.getByRole("listitem");
  await expect(codes).toHaveCount(10);
  const lines = await list.evaluate((ol) =>
    [...ol.querySelectorAll("li")].map((li) => {
      const range = document.createRange();
      range.selectNodeContents(li);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    })
  );
  expect(lines).toEqual(Array(10).fill(1));
  await list.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/access-recovery-codes-390.png" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: "test-results/access-recovery-codes-1280.png" });
  const recovery = (await codes.first().textContent())!;

  await signOut(page);
  await signIn(page);
  await expect(page.getByRole("form", { name: "Second step" })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/access-second-step-390.png" });
  await page.getByRole("button", { name: "Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(recovery);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible({ timeout: 30_000 });
  void panel;
});

test("passkeys: add one with the virtual authenticator, sign in without a password, and as the second step", async ({ page, panel }) => {
  // WebAuthn needs a host name (an IP address cannot be a relying party): localhost is a secure context.
  const url = panel.url.replace("127.0.0.1", "localhost");
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto(url + "/account");
  await signIn(page);
  await expect(page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible({ timeout: 30_000 });
  await page.getByLabel("Passkey name").fill("Test laptop");
  await page.getByRole("button", { name: "Add Passkey" }).click();
  const list = page.getByRole("list", { name: "Passkeys" });
  await expect(list.getByText("Test laptop")).toBeVisible();
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0].rpId).toBe("localhost");
  expect(credentials[0].isResidentCredential).toBe(true);

  // Rename it.
  await page.getByRole("button", { name: "Rename passkey Test laptop" }).click();
  await page.getByLabel("New name").fill("Work laptop");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(list.getByText("Work laptop")).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: "test-results/access-account-1280.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/access-account-390.png", fullPage: true });

  // Passwordless.
  await signOut(page);
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible({ timeout: 30_000 });

  // As the second step after the password.
  await signOut(page);
  await signIn(page);
  await expect(page.getByRole("form", { name: "Second step" })).toBeVisible();
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible({ timeout: 30_000 });

  // Removing it brings back the password alone.
  await goTo(page, "Account");
  await page.getByRole("button", { name: "Remove passkey Work laptop" }).click();
  await expect(list.getByText("Work laptop")).toHaveCount(0);
  await signOut(page);
  await signIn(page);
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible({ timeout: 30_000 });
});

test("Activity page: what happened in words, pages of older records, filters and CSV export, at both widths", async ({ page, panel }) => {
  await addUser(panel.url, "olga", "operator");
  const api = await adminApi(panel.url);
  const schedule = await api("POST", "/api/schedules", {
    name: "Nightly restart",
    cron: "0 4 * * *",
    condition: "always",
    enabled: false,
    tasks: [{ type: "command", text: "/save" }],
  });
  await api("POST", `/api/schedules/${schedule.id}/run`);
  // More than a page of records: 55 tries to delete saves that are not there.
  for (let i = 0; i < 55; i++) await api("GET", `/api/saves/rm/missing-${i}.zip`).catch(() => {});
  await page.goto("/");
  await signIn(page);
  await goTo(page, "Activity");
  await expect(page.getByRole("heading", { name: "Activity", level: 1 })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Tried to delete save 'missing-54.zip': not found")).toBeVisible();
  await expect(page.getByText("Page 1 · records 1-50")).toBeVisible();
  await expect(page.getByText("Ran schedule 'Nightly restart' now")).toHaveCount(0);
  await page.getByRole("button", { name: "Older" }).click();
  await expect(page.getByText("Ran schedule 'Nightly restart' now")).toBeVisible();
  await expect(page.getByText("Added user olga (operator)")).toBeVisible();
  await expect(page.getByText("POST /api/user/add").first()).toBeVisible();
  await page.screenshot({ path: "test-results/access-activity-1280.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByText("Ran schedule 'Nightly restart' now").scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/access-activity-page2-390.png" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("button", { name: "Newer" }).click();
  await expect(page.getByText("Page 1 · records 1-50")).toBeVisible();
  await page.getByLabel("User").fill("olga");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("Nothing recorded matches.")).toBeVisible();
  await page.getByLabel("User").fill("admin");
  await page.getByLabel("Action").fill("user/add");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("POST /api/login")).toHaveCount(0);
  await expect(page.getByText("POST /api/user/add")).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("activity.csv");
  const csv = await (await import("node:fs/promises")).readFile((await file.path())!, "utf8");
  expect(csv.split("\r\n")[0]).toBe("at,username,via,address,user_agent,action,detail,status,server");
  expect(csv).toContain("POST /api/user/add,olga (operator),200");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/access-activity-390.png", fullPage: true });

  // The Users page: a role for each user, chosen when adding.
  await goTo(page, "Users");
  const users = page.getByRole("table", { name: "Users" });
  await expect(users.getByRole("combobox", { name: "Role of olga" })).toHaveText("operator");
  await page.screenshot({ path: "test-results/access-users-390.png", fullPage: true });
  await users.getByRole("combobox", { name: "Role of olga" }).click();
  await page.getByRole("option", { name: "viewer" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: ACCESS_MSG.roleChanged("olga", "viewer") }))
    .toBeVisible();
  await users.getByRole("combobox", { name: "Role of admin" }).click();
  await page.getByRole("option", { name: "operator" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: ACCESS_MSG.lastAdmin("admin") })).toBeVisible();
  await expect(users.getByRole("combobox", { name: "Role of admin" })).toHaveText("admin");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: "test-results/access-users-1280.png", fullPage: true });
});

test("a role taken away while the Users page is open: the page says so instead of breaking", async ({ page, panel }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await addUser(panel.url, "olga", "admin");
  await page.goto("/");
  await signIn(page, "olga", PASSWORD);
  await goTo(page, "Users");
  await expect(page.getByRole("form", { name: "Create User" })).toBeVisible({ timeout: 30_000 });
  // Another admin makes her a viewer; her app learns it when it reads the session again (here: back online).
  const admin = await adminApi(panel.url);
  await admin("POST", "/api/user/role", { username: "olga", role: "viewer" });
  await page.context().setOffline(true);
  await page.context().setOffline(false);
  await expect(page.getByText("Only admins manage panel users.")).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("form", { name: "Create User" })).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }))
    .toHaveCount(0);
  expect(errors).toEqual([]);
});

test("API tokens: an admin sees everyone's and revokes one; the page says a password change revokes them", async ({ page, panel }) => {
  await addUser(panel.url, "olga", "operator");
  // Olga's script token, made from her own session.
  const res = await fetch(panel.url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: panel.url },
    body: JSON.stringify({ username: "olga", password: PASSWORD }),
  });
  const cookie = res.headers.getSetCookie()[0].split(";")[0];
  await res.body?.cancel();
  const made = await (await fetch(panel.url + "/api/user/tokens", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: panel.url, Cookie: cookie },
    body: JSON.stringify({ name: "olga's backup script", role: "operator", expires_days: 30 }),
  })).json();
  const status = async () =>
    (await fetch(panel.url + "/api/server/status", { headers: { Authorization: `Bearer ${made.token}` } }))
      .status;
  expect(await status()).toBe(200);

  await page.goto("/");
  await signIn(page);
  await goTo(page, "Account");
  const tokens = page.getByRole("region", { name: "API Tokens" });
  await expect(tokens.getByText("Changing your password revokes your tokens.")).toBeVisible({
    timeout: 30_000,
  });
  await expect(tokens.getByText("olga's backup script")).toHaveCount(0);
  await tokens.getByLabel("Everyone's").check();
  await expect(tokens.getByText("olga's backup script · olga")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await tokens.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/access-tokens-everyone-390.png" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await tokens.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/access-tokens-everyone-1280.png" });
  await tokens.getByRole("button", { name: "Revoke token olga's backup script of olga" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: ACCESS_MSG.tokenRevoked })).toBeVisible();
  await expect(tokens.getByText("revoked")).toBeVisible();
  expect(await status()).toBe(401);
});

test.describe("with --require-2fa-admins", () => {
  test.use({ panelArgs: ["--require-2fa-admins"] });

  test("an admin without a second factor is taken to Account until one is set up", async ({ page }) => {
    await page.goto("/saves");
    await signIn(page);
    await expect(page).toHaveURL(/\/account$/);
    await expect(page.getByText("This panel requires admins to use a second factor")).toBeVisible({
      timeout: 30_000,
    });
    await goTo(page, "Saves");
    await expect(page).toHaveURL(/\/account$/);
    await page.getByRole("button", { name: "Set Up Authenticator App" }).click();
    const secret = (await page.getByLabel("Setup key").textContent())!.trim();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
    await page.getByLabel("Code", { exact: true }).fill(totp.generate());
    await page.getByRole("button", { name: "Turn On" }).click();
    await expect(page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem")).toHaveCount(10);
    await goTo(page, "Saves");
    await expect(page).toHaveURL(/\/saves$/);
    await expect(page.getByRole("heading", { name: "Saves", level: 1 })).toBeVisible({ timeout: 30_000 });
  });
});
