// The pre-rendered sign-in form (login.html) works before the app has arrived: its own small script checks
// the fields, sends the sign-in and shows the spec's texts; the app, once it runs, carries on from there.
// The app's scripts are held back here until the test lets them through, as a slow network would.

import type { Page, Route } from "@playwright/test";
import { ADMIN_PASSWORD, expect, test } from "./fixtures.ts";
import { MSG } from "../../shared/messages.ts";

/** Holds back the app's scripts (not the form's own); returns a function that lets them through. */
async function holdApp(page: Page): Promise<() => Promise<void>> {
  const held: Route[] = [];
  let open = false;
  await page.route(
    /\/assets\/(index|signed-in)-[^/]*\.js$/,
    (route) => (open ? route.continue() : void held.push(route)),
  );
  return async () => {
    open = true;
    await Promise.all(held.splice(0).map((r) => r.continue()));
  };
}

test("before the app runs, the pre-rendered form says what is missing and that the password is wrong", async ({ page }) => {
  const release = await holdApp(page);
  await page.goto("/login", { waitUntil: "commit" });
  await expect(page.locator("#login-shell[data-ready]")).toBeAttached();
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByText(MSG.usernameRequired)).toBeVisible();
  await expect(page.getByText(MSG.passwordRequired)).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill("wrong password");
  await page.getByLabel("Password", { exact: true }).press("Enter");
  await expect(page.getByTestId("flash")).toHaveText(MSG.loginFailed);
  // A filled form clears the messages, as the app's does.
  await expect(page.getByText(MSG.usernameRequired)).not.toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill("");
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByText(MSG.passwordRequired)).toBeVisible();
  await expect(page.locator("#login-shell")).toBeAttached();
  // The app takes over with what was typed; the message stays until the next try.
  await release();
  await expect(page.locator("#login-shell")).not.toBeAttached();
  await expect(page.getByLabel("Username")).toHaveValue("admin");
  await expect(page.getByText(MSG.passwordRequired)).toBeVisible();
  await expect(page.getByText(MSG.usernameRequired)).not.toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
});

test("a sign-in sent by the pre-rendered form lands on Controls once the app arrives", async ({ page }) => {
  const release = await holdApp(page);
  await page.goto("/login", { waitUntil: "commit" });
  await expect(page.locator("#login-shell[data-ready]")).toBeAttached();
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/login"));
  await page.getByRole("button", { name: "Sign In" }).click();
  const answer = await answered;
  expect(answer.status()).toBe(200);
  // Signed in, but nothing to show it with yet: the button waits, busy.
  await expect(page.getByRole("button", { name: "Sign In" })).toBeDisabled();
  await release();
  await expect(page.getByRole("form", { name: "Start Server" })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  // A real session: a reload stays signed in.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
});

test("the app takes over a sign-in the pre-rendered form sent that is still on its way", async ({ page }) => {
  const release = await holdApp(page);
  // The sign-in's answer waits until the app has taken the form over.
  let answer: (() => void) | null = null;
  await page.route("**/api/login", async (route) => {
    await new Promise<void>((ok) => (answer = ok));
    await route.continue();
  });
  await page.goto("/login", { waitUntil: "commit" });
  await expect(page.locator("#login-shell[data-ready]")).toBeAttached();
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect.poll(() => answer !== null).toBe(true);
  await release();
  await expect(page.locator("#login-shell")).not.toBeAttached();
  await expect(page.getByRole("button", { name: "Sign In" })).toBeDisabled();
  answer!();
  await expect(page.getByRole("form", { name: "Start Server" })).toBeVisible();
});
