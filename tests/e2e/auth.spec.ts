import { ADMIN_PASSWORD, expect, goTo, signIn, signOut, test } from "./fixtures.ts";
import { MSG } from "../../shared/messages.ts";
import { ACCESS_MSG, ROLE_HELP } from "../../shared/access.ts";
import { WS_PER_SIGN_IN, WS_TOO_MANY } from "../../shared/ws.ts";

test("a signed-out visitor is sent to login and lands on the page they asked for", async ({ page }) => {
  await page.goto("/user-management");
  await expect(page).toHaveURL(/\/login$/);
  await signIn(page);
  await expect(page).toHaveURL(/\/user-management$/);
  await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible();
  // The session survives a reload; /login then forwards to the app.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible();
  await page.goto("/login");
  await expect(page).toHaveURL(/\/$/);
});

test("the login form checks its fields and says when the password is wrong", async ({ page }) => {
  await page.goto("/login");
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByText(MSG.usernameRequired)).toBeVisible();
  await expect(page.getByText(MSG.passwordRequired)).toBeVisible();
  await signIn(page, "admin", "wrong password");
  await expect(page.getByTestId("flash")).toHaveText(MSG.loginFailed);
  await expect(page).toHaveURL(/\/login$/);
});

test("create a user, sign in as them, change their password, delete them, sign out", async ({ page }) => {
  // Six sign-ins (scrypt each) and two pages: on a loaded machine this passes the default 60 s.
  test.setTimeout(180_000);
  await page.goto("/user-management");
  await signIn(page);
  const create = page.getByRole("form", { name: "Create User" });
  await create.getByRole("button", { name: "Create User" }).click();
  await expect(create.getByText(MSG.usernameRequired)).toBeVisible();
  await expect(create.getByText(MSG.emailRequired)).toBeVisible();
  await expect(create.getByText(MSG.passwordRequired)).toBeVisible();
  await expect(create.getByText(MSG.passwordConfirmationMismatch)).toBeVisible();
  // The least privilege unless chosen otherwise, and each choice says what it allows.
  await expect(create.getByRole("combobox", { name: "Role" })).toHaveText("viewer");
  await expect(create.getByText(ROLE_HELP.viewer)).toBeVisible();
  await create.getByRole("combobox", { name: "Role" }).click();
  for (const role of ["viewer", "operator", "admin"] as const) {
    await expect(page.getByRole("option", { name: new RegExp(`^${role}`) })).toContainText(ROLE_HELP[role]);
  }
  await page.screenshot({ path: "test-results/users-create-roles-1280.png" });
  await page.keyboard.press("Escape");
  await create.getByLabel("Username").fill("bob");
  await create.getByLabel("Email").fill("bob@example.org");
  await create.getByLabel("Password", { exact: true }).fill("bob first password");
  await create.getByLabel("Password Confirmation").fill("bob first password");
  await create.getByRole("button", { name: "Create User" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "User: bob successfully added." })).toBeVisible();
  const users = page.getByRole("table", { name: "Users" });
  await expect(users.getByRole("row", { name: /^bob / })).toContainText("bob@example.org");
  await expect(users.getByRole("combobox", { name: "Role of bob" })).toHaveText("viewer");
  // On a phone every column fits: nothing cut ("Ac" for Actions) and the delete buttons on screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await users.getByRole("button", { name: "Delete user bob" }).scrollIntoViewIfNeeded();
  const fit = await users.evaluate((table) => {
    const container = table.parentElement!;
    const cells = [...table.querySelectorAll("th, td")].filter((c) =>
      (c as HTMLElement).offsetParent !== null
    );
    return {
      overflow: container.scrollWidth - container.clientWidth,
      cut: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
      right: Math.max(...[...table.querySelectorAll("button")].map((b) => b.getBoundingClientRect().right)),
    };
  });
  expect(fit.overflow).toBeLessThanOrEqual(0);
  expect(fit.cut).toEqual([]);
  expect(fit.right).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "test-results/users-390.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: "test-results/users-1280.png", fullPage: true });

  await signOut(page);
  await signIn(page, "bob", "bob first password");
  await expect(page).toHaveURL(/\/$/);
  // A viewer: no Users page, their own password is under Account.
  await goTo(page, "Account");
  const change = page.getByRole("form", { name: "Change Password" });
  await expect(change.getByText(ACCESS_MSG.passwordChangeRevokes)).toBeVisible();
  await change.getByLabel("Old Password").fill("bob first password");
  await change.getByLabel("New Password", { exact: true }).fill("bob second password");
  await change.getByLabel("New Password Confirmation").fill("bob second password");
  await change.getByRole("button", { name: "Change Password" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: MSG.passwordChanged })).toBeVisible();
  await signOut(page);
  await signIn(page, "bob", "bob first password");
  await expect(page.getByTestId("flash").filter({ hasText: MSG.loginFailed })).toBeVisible();
  await signIn(page, "bob", "bob second password");
  await expect(page).toHaveURL(/\/$/);
  await signOut(page);

  await page.goto("/user-management");
  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Delete user bob" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: "User: bob successfully removed." }))
    .toBeVisible();
  await expect(users.getByRole("row", { name: /bob/ })).toHaveCount(0);
  await signOut(page);
  await page.goto("/user-management");
  await expect(page).toHaveURL(/\/login$/);
});

test("unknown pages show the catch-all screen inside the layout", async ({ page }) => {
  await page.goto("/no/such/page");
  await signIn(page);
  await expect(page.getByRole("heading", { name: "Not Found" })).toBeVisible();
  await expect(page.getByText("/no/such/page")).toBeVisible();
  await page.getByRole("link", { name: "Go to Controls" }).click();
  await expect(page).toHaveURL(/\/$/);
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the menu collapses behind a toggle", async ({ page }, testInfo) => {
    await page.goto("/help");
    await signIn(page);
    await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
    const toggle = page.getByRole("button", { name: "Open menu" });
    await expect(toggle).toBeVisible();
    await expect(page.getByRole("link", { name: "Saves" })).toBeHidden();
    await page.screenshot({ path: testInfo.outputPath("phone-menu-collapsed.png"), fullPage: true });
    await toggle.click();
    await expect(page.getByRole("link", { name: "Saves" })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("phone-menu-open.png") });
    await page.getByRole("link", { name: "Users" }).click();
    await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "Saves" })).toBeHidden();
  });
});

test("the sidebar shows the status badge and every link on a desktop", async ({ page }, testInfo) => {
  await page.goto("/");
  await signIn(page);
  await expect(page.getByTestId("status-badge")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
  for (
    const name of [
      "Controls",
      "Saves",
      "Mods",
      "Server Settings",
      "Game Settings",
      "Console",
      "Logs",
      "Users",
      "Help",
    ]
  ) {
    await expect(page.getByRole("link", { name, exact: true })).toBeVisible();
  }
  await page.screenshot({ path: testInfo.outputPath("desktop-layout.png"), fullPage: true });
});

test.describe("code still arriving", () => {
  // Once the service worker has precached the build, it claims the page and answers chunks from its cache, where
  // page.route never sees them: the hold below would not hold. Here the page's code must come from the network.
  test.use({ serviceWorkers: "block" });

  test("signed in, a page whose code is still arriving leaves the last page up, without a loading circle", async ({ page }) => {
    // The router's navigations are transitions once signed in (App.tsx PanelRouter); signing in itself is a
    // plain update. Held here until checked: the Console page's code.
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    await page.route(/\/assets\/Console-[^/]*\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/");
    await signIn(page);
    await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
    await page.evaluate(() => {
      const w = window as unknown as { loadingSeen: boolean };
      w.loadingSeen = false;
      new MutationObserver(() => {
        if (document.querySelector('[aria-label="Loading"]')) w.loadingSeen = true;
      }).observe(document.body, { subtree: true, childList: true });
    });
    await page.getByRole("link", { name: "Console", exact: true }).click();
    await expect(page).toHaveURL(/\/console$/);
    await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
    release();
    await expect(page.getByRole("heading", { name: "Console", level: 1 })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { loadingSeen: boolean }).loadingSeen)).toBe(
      false,
    );
  });
});

test("one browser holding too many live connections: the next tab says why it gets no live updates", async ({ page, context }) => {
  await page.goto("/");
  await signIn(page);
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible({ timeout: 30_000 });
  // Another tab of the same browser (the same session) opens connections until the panel refuses one.
  const other = await context.newPage();
  await other.goto("/api/user/status");
  const fill = () =>
    other.evaluate(async () => {
      const w = window as unknown as { held?: WebSocket[] };
      w.held ??= [];
      for (let i = 0; i < 50; i++) {
        const ws = new WebSocket(`ws://${location.host}/ws`);
        const outcome = await new Promise<number | "open">((resolve) => {
          ws.onopen = () =>
            ws.send(
              JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "server_status" } }),
            );
          ws.onmessage = () => resolve("open");
          ws.onclose = (e) => resolve(e.code);
        });
        if (outcome !== "open") return { held: w.held.length, refusedWith: outcome };
        w.held.push(ws);
      }
      return { held: w.held.length, refusedWith: null };
    });
  // The app's own connection is one of the session's.
  expect(await fill()).toEqual({ held: WS_PER_SIGN_IN - 1, refusedWith: WS_TOO_MANY.code });
  // The app's tab leaves the panel, the other tab takes its place, and the app comes back.
  await page.goto("/api/user/status");
  await expect.poll(fill).toEqual({ held: WS_PER_SIGN_IN, refusedWith: WS_TOO_MANY.code });
  await page.goto("/");
  await expect(page.getByTestId("flash").filter({ hasText: WS_TOO_MANY.reason })).toBeVisible({
    timeout: 30_000,
  });
  await page.screenshot({ path: "test-results/ws-too-many-1280.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByTestId("flash").filter({ hasText: WS_TOO_MANY.reason })).toBeVisible({
    timeout: 30_000,
  });
  await page.screenshot({ path: "test-results/ws-too-many-390.png" });
});
