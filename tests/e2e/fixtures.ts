// Each test gets its own panel: the real backend (deno run backend/main.ts) on a free port, serving the
// built PWA, over a fresh temp data dir. Areas extend `test` with their own fixtures (the Factorio
// simulator, the fake mod portal, the fake push service).

// Playwright fixtures, not React: `use` is Playwright's callback, not a hook, and Playwright reads what a
// fixture needs from its first parameter, which must be a destructuring pattern, `{}` when it needs nothing.
// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern
import { expect, type Page, test as base } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import { spawnPanel } from "../../scripts/launcher.mjs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const ADMIN_PASSWORD = "e2e-admin-password";

export interface PanelProcess {
  url: string;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startPanelProcess(
  opts: { args?: string[]; env?: Record<string, string>; dataDir?: string } = {},
): Promise<PanelProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "panel-e2e-"));
  // Started exactly as `npm start` starts it (scripts/launcher.mjs): the same permissions, the same entry.
  const child = spawnPanel([
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--data-dir",
    dataDir,
    ...(opts.args ?? []),
  ], {
    env: { ...process.env, PANEL_ADMIN_PASSWORD: ADMIN_PASSWORD, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`panel did not start:\n${out}`)), 30_000);
    const onData = () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.on("exit", (code) => fail(new Error(`panel exited with ${code}:\n${out}`)));
  });
  return {
    url,
    dataDir,
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const test = base.extend<{ panel: PanelProcess }>({
  panel: async ({}, use) => {
    const panel = await startPanelProcess();
    await use(panel);
    await panel.stop();
  },
  baseURL: async ({ panel }, use) => {
    await use(panel.url);
  },
});

export { expect };

/** The admin's API session from Node, for setting things up without clicking. */
export async function adminApi(url: string) {
  const res = await fetch(url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: url },
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  const cookie = res.headers.getSetCookie()[0].split(";")[0];
  await res.body?.cancel();
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(url + path, {
      method,
      headers: { "Content-Type": "application/json", Origin: url, Cookie: cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  };
}

/** The password of the users addUser makes. */
export const ROLE_PASSWORD = "e2e-role-password";

/** Adds a panel user with `role` through the admin's API. */
export async function addUser(url: string, username: string, role: string): Promise<void> {
  const api = await adminApi(url);
  await api("POST", "/api/user/add", {
    username,
    role,
    email: `${username}@example.org`,
    password: ROLE_PASSWORD,
    password_confirmation: ROLE_PASSWORD,
  });
}

/** Signs in through the login form. */
export async function signIn(page: Page, username = "admin", password = ADMIN_PASSWORD): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
}

/** Opens `path` signed in as admin. */
export async function openSignedIn(page: Page, path = "/"): Promise<void> {
  await page.goto(path);
  await expect(page).toHaveURL(/\/login$/);
  await signIn(page);
  await expect(page).not.toHaveURL(/\/login$/);
}

/** Below MUI's "md" breakpoint the sidebar is a drawer behind the bottom bar's menu button. */
const PHONE_LAYOUT_BELOW = 900;

/**
 * Opens the sidebar on a phone layout. Decided by the viewport, not by whether the menu button shows:
 * while the drawer of the last click is still sliding out, the page behind it is hidden from the
 * accessibility tree, so the button "is not visible" and a check on it skipped opening the menu. The
 * next click then landed on a link of the closing drawer, which was gone a moment later. The click
 * here waits until that drawer has gone.
 */
export async function openSidebar(page: Page): Promise<void> {
  if ((page.viewportSize()?.width ?? PHONE_LAYOUT_BELOW) < PHONE_LAYOUT_BELOW) {
    await page.getByRole("button", { name: "Open menu" }).click();
  }
}

/** Follows a sidebar link, opening the menu first on a phone. */
export async function goTo(page: Page, link: string): Promise<void> {
  await openSidebar(page);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link }).click();
}

/** Signs out with the sidebar's Logout, opening the menu first on a phone. */
export async function signOut(page: Page): Promise<void> {
  await openSidebar(page);
  await page.getByRole("button", { name: /Logout/ }).click();
  await expect(page).toHaveURL(/\/login$/);
}
