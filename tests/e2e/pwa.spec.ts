// The installable app in Chromium: manifest and icons, the service worker and its precache, the
// offline shell, the update prompt, and Web Push from the Notifications page to the fake push service
// and back into a notification.

import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSignedIn, type PanelProcess, ROOT, signIn, signOut, startPanelProcess } from "./fixtures.ts";
import {
  deliverPush,
  expect,
  type FakePush,
  panelPushKey,
  shownNotifications,
  stubPushManager,
  test,
  waitForServiceWorker,
} from "./push-fixtures.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import type { Page } from "@playwright/test";

/** What the panel names a device from Playwright's Desktop Chrome user agent. */
const DEVICE = "Chrome on Windows";

function pngSize(bytes: Buffer): [number, number] {
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

test("installable: the manifest, its icons, and a service worker that controls the page with the shell precached", async ({ page }) => {
  await openSignedIn(page, "/");
  await waitForServiceWorker(page);
  const href = await page.locator('link[rel="manifest"]').getAttribute("href");
  const manifest = await (await page.request.get(href!)).json();
  expect(manifest).toMatchObject({
    name: "Factorio Panel",
    short_name: "Factorio",
    display: "standalone",
    start_url: "/",
    theme_color: "#242324",
    background_color: "#1b1a1b",
  });
  const wanted = ["192x192 any", "512x512 any", "192x192 maskable", "512x512 maskable"];
  expect(manifest.icons.map((i: { sizes: string; purpose: string }) => `${i.sizes} ${i.purpose}`)).toEqual(
    wanted,
  );
  for (const icon of manifest.icons) {
    const res = await page.request.get(icon.src);
    expect(res.headers()["content-type"]).toBe("image/png");
    expect(pngSize(await res.body()).join("x")).toBe(icon.sizes);
  }
  const apple = await page.request.get(
    (await page.locator('link[rel="apple-touch-icon"]').getAttribute("href"))!,
  );
  expect(pngSize(await apple.body())).toEqual([180, 180]);

  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
    }
    return urls;
  });
  for (
    const path of ["/index.html", "/manifest.webmanifest", "/icons/icon-192.png", "/icons/maskable-512.png"]
  ) {
    expect(cached).toContain(path);
  }
  expect(cached.some((p) => /^\/assets\/Notifications-.*\.js$/.test(p)), "every page's code is precached")
    .toBe(true);
  expect(cached.some((p) => p.endsWith(".woff2"))).toBe(true);
  expect(new Set(cached).size).toBe(cached.length);
  // The service worker itself is always revalidated, so a deployment is noticed.
  expect((await page.request.get("/sw.js")).headers()["cache-control"]).toBe("no-cache");
});

async function offlineReload(page: Page, path: string) {
  await page.context().setOffline(true);
  await page.goto(path);
}

test(
  "offline: the app opens from the cache signed in, shows the last known status, and says actions need a connection",
  async ({ page }, testInfo) => {
    await openSignedIn(page, "/");
    await waitForServiceWorker(page);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();

    await offlineReload(page, "/");
    await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
    const banner = page.getByTestId("offline-banner");
    await expect(banner).toContainText(/^Offline - last known: Stopped, \d\d:\d\d/);
    await expect(banner).toContainText(PUSH_MSG.offlineHint);
    await expect(page).toHaveURL(/\/$/);
    await page.screenshot({ path: testInfo.outputPath("offline-desktop.png"), fullPage: true });

    // A deep link opens offline too, and the pages that need no fresh data read fine.
    await offlineReload(page, "/help");
    await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
    await page.getByRole("link", { name: "Notifications" }).click();
    await expect(page.getByText("Your devices are shown when the panel can be reached.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Send test notification" })).toBeDisabled();

    // Back online: the app notices by itself and refreshes.
    await page.context().setOffline(false);
    await expect(banner).toBeHidden({ timeout: 20_000 });
    await expect(page.getByText("No device gets your alerts yet.")).toBeVisible();
  },
);

test("a push delivered to the service worker shows a notification with the title from the payload", async ({ page, context }) => {
  await context.grantPermissions(["notifications"]);
  await openSignedIn(page, "/help");
  await waitForServiceWorker(page);
  const payload = {
    kind: "crashed",
    title: PUSH_MSG.titleCrashed,
    body: "Exit code 1.",
    tag: "factorio-server-crash",
    url: "/",
    at: new Date().toISOString(),
  };
  await deliverPush(page, JSON.stringify(payload));
  await expect.poll(() => shownNotifications(page)).toEqual([
    { title: PUSH_MSG.titleCrashed, body: "Exit code 1.", tag: "factorio-server-crash", url: "/" },
  ]);
});

/** Signs in on the Notifications page with PushManager answering with a fake-service subscription. */
async function enableHere(page: Page, fakePush: FakePush, panel: PanelProcess) {
  const sub = await fakePush.subscribe(await panelPushKey(panel));
  await page.context().grantPermissions(["notifications"]);
  await stubPushManager(page.context(), sub);
  await openSignedIn(page, "/notifications");
  await waitForServiceWorker(page);
  await page.getByRole("button", { name: "Enable notifications on this device" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: `Notifications are on for ${DEVICE}.` }))
    .toBeVisible();
  return sub;
}

test(
  "enable notifications here, choose events, send a test that the fake push service decrypts and the device shows",
  async ({ page, panel, fakePush }, testInfo) => {
    const sub = await enableHere(page, fakePush, panel);
    await expect(page.getByTestId("this-device-state")).toHaveText(
      `Alerts are on for this device (${DEVICE}).`,
    );
    const device = page.getByRole("listitem", { name: DEVICE });
    await expect(device.getByText("This device")).toBeVisible();
    await expect(device.getByRole("checkbox", { name: "Crashed" })).toBeChecked();
    await expect(device.getByRole("checkbox", { name: "Stopped" })).toBeChecked();
    await expect(device.getByRole("checkbox", { name: "Started" })).not.toBeChecked();
    await device.getByRole("checkbox", { name: "Started" }).check();
    await expect(device.getByRole("checkbox", { name: "Started" })).toBeChecked();
    await page.reload();
    await expect(page.getByRole("listitem", { name: DEVICE }).getByRole("checkbox", { name: "Started" }))
      .toBeChecked();

    await page.getByRole("button", { name: "Send test notification" }).click();
    await expect(
      page.getByTestId("flash").filter({ hasText: `Sent to ${DEVICE} (push service answered 201).` }),
    ).toBeVisible();
    const received = await fakePush.waitFor((r) => r.subscriptionId === sub.id && r.status === 201);
    const payload = JSON.parse(received.payload!);
    expect(payload).toMatchObject({
      kind: "test",
      title: PUSH_MSG.titleTest,
      body: PUSH_MSG.bodyTest,
      url: "/notifications",
    });
    expect(received.claims?.aud).toBe(fakePush.origin);

    // What the push service would hand the browser, handed to the service worker.
    await deliverPush(page, received.payload!);
    await expect.poll(() => shownNotifications(page)).toEqual([
      {
        title: PUSH_MSG.titleTest,
        body: PUSH_MSG.bodyTest,
        tag: "factorio-panel-test",
        url: "/notifications",
      },
    ]);
    await page.screenshot({ path: testInfo.outputPath("notifications-desktop.png"), fullPage: true });

    // A click on the notification brings the panel to the page it names.
    await page.getByRole("link", { name: "Help" }).click();
    await expect(page).toHaveURL(/\/help$/);
    const [worker] = page.context().serviceWorkers();
    await worker.evaluate(async () => {
      const sw = self as unknown as ServiceWorkerGlobalScope;
      const [n] = await sw.registration.getNotifications();
      sw.dispatchEvent(new NotificationEvent("notificationclick", { notification: n }));
    });
    await expect(page).toHaveURL(/\/notifications$/);

    // Rename, then turn it off here.
    await page.getByRole("button", { name: `Rename ${DEVICE}` }).click();
    await page.getByLabel("Device name").fill("Work laptop");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("listitem", { name: "Work laptop" })).toBeVisible();
    await page.getByRole("button", { name: "Turn off on this device" }).click();
    await expect(page.getByText("No device gets your alerts yet.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Enable notifications on this device" })).toBeVisible();
  },
);

test("a device the push service reports gone disappears from the list after a test", async ({ page, panel, fakePush }) => {
  const sub = await enableHere(page, fakePush, panel);
  await fakePush.respond(sub.id, 410);
  await page.getByRole("button", { name: `Send a test notification to ${DEVICE}` }).click();
  await expect(page.getByTestId("flash").filter({ hasText: /push service answered 410.*device was removed/ }))
    .toBeVisible();
  await expect(page.getByText("No device gets your alerts yet.")).toBeVisible();
});

test("signing out of a device stops its alerts", async ({ page, panel, fakePush }) => {
  await enableHere(page, fakePush, panel);
  await expect(page.getByRole("listitem", { name: DEVICE })).toBeVisible();
  await signOut(page);
  await signIn(page);
  await page.getByRole("link", { name: "Notifications" }).click();
  await expect(page.getByText("No device gets your alerts yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Enable notifications on this device" })).toBeVisible();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test(
    "the Notifications page and the offline banner fit a phone",
    async ({ page, panel, fakePush }, testInfo) => {
      await enableHere(page, fakePush, panel);
      await expect(page.getByRole("listitem", { name: DEVICE })).toBeVisible();
      await expect(page.getByRole("button", { name: "Send test notification" })).toBeEnabled();
      await page.screenshot({ path: testInfo.outputPath("notifications-phone.png"), fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await offlineReload(page, "/");
      await expect(page.getByTestId("offline-banner")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
      await page.screenshot({ path: testInfo.outputPath("offline-phone.png"), fullPage: true });
    },
  );
});

test(
  "a new deployment shows 'New version available' and reloads into it only when asked",
  async ({ page }, testInfo) => {
    // A panel serving its own copy of the build, so the test can deploy a "new version" of it.
    const staticDir = mkdtempSync(join(tmpdir(), "panel-static-"));
    cpSync(join(ROOT, "pwa", "dist"), staticDir, { recursive: true });
    const own = await startPanelProcess({ args: ["--static-dir", staticDir] });
    try {
      await page.goto(own.url + "/help");
      await signIn(page);
      await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
      await waitForServiceWorker(page);
      const first = await page.evaluate(() => navigator.serviceWorker.controller!.scriptURL);
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

      appendFileSync(join(staticDir, "sw.js"), "\n// deployment 2\n");
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
      const prompt = page.getByText(PUSH_MSG.updateAvailable);
      await expect(prompt).toBeVisible({ timeout: 30_000 });
      await page.screenshot({ path: testInfo.outputPath("update-prompt.png"), animations: "disabled" });
      // Nothing was swapped underneath: same page, same state, the old worker still in control.
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
      expect(await page.evaluate(() => navigator.serviceWorker.controller!.scriptURL)).toBe(first);

      await page.getByRole("button", { name: "Reload" }).click();
      await page.waitForFunction(
        () => (window as unknown as { marker?: number }).marker === undefined,
        undefined,
        { timeout: 30_000 },
      );
      await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
      await expect(prompt).toBeHidden();
      const swText = await page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration();
        return reg?.waiting === null && reg?.active !== null;
      });
      expect(swText).toBe(true);
    } finally {
      await own.stop();
      rmSync(staticDir, { recursive: true, force: true });
    }
  },
);
