// "Enable notifications on this device" says what it waits for, gives up on a push service that does not
// answer with the reason, and tells a browser without push (a private window, some browsers) why. Headless
// Chromium reaches no push service, so PushManager is made to wait forever, or is taken away, as those
// browsers do; Playwright's clock stands in for the 20 seconds. Screenshots go to test-results/e2e/notifications-enable/.

import { expect, openSignedIn, test } from "./fixtures.ts";
import { waitForServiceWorker } from "./push-fixtures.ts";

const SHOTS = "test-results/e2e/notifications-enable";

for (
  const vp of [
    { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
  ]
) {
  test.describe(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}`, () => {
    test.use({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });

    test("a push service that never answers: the wait is counted, then it gives up saying why", async ({ page, context }) => {
      await context.grantPermissions(["notifications"]);
      await context.addInitScript(() => {
        PushManager.prototype.getSubscription = async () => null;
        PushManager.prototype.subscribe = () => new Promise<PushSubscription>(() => {});
      });
      await page.clock.install();
      await openSignedIn(page, "/notifications");
      await waitForServiceWorker(page);
      const enable = page.getByRole("button", { name: "Enable notifications on this device" });
      await enable.click();
      const progress = page.getByTestId("enable-progress");
      await expect(progress).toHaveText(
        /^Waiting for the browser's push service to register this device \(\d+ s; it gives up after 20 s\)\.$/,
      );
      await expect(enable).toBeDisabled();
      await page.clock.fastForward(5_000);
      await expect(progress).toHaveText(/\(([5-9]|1\d) s;/);
      await page.screenshot({ path: `${SHOTS}/${vp.name}-waiting.png` });

      await page.clock.fastForward(16_000);
      const failed = page.getByTestId("enable-failed");
      await expect(failed).toContainText(
        "The browser's push service did not answer within 20 seconds, so notifications are not on.",
      );
      await expect(failed).toContainText(
        "a private window, a browser that turns it off (Brave, by default) or a network that blocks it",
      );
      await expect(progress).toHaveCount(0);
      await expect(enable).toBeEnabled();
      await expect(page.getByText("No device gets your alerts yet.")).toBeVisible();
      await page.screenshot({ path: `${SHOTS}/${vp.name}-gave-up.png`, fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });

    test("no Push API (a private window, some browsers): it says why and how to get alerts", async ({ page, context }) => {
      await context.addInitScript(() => {
        delete (window as { PushManager?: unknown }).PushManager;
      });
      await openSignedIn(page, "/notifications");
      await expect(page.getByText(
        "This browser offers no push notifications here. Private (incognito) windows have none in most browsers, and some browsers have none at all. To get alerts on this device, open the panel in a normal window of Chrome, Edge, Firefox or Safari.",
      )).toBeVisible();
      await expect(page.getByRole("button", { name: "Enable notifications on this device" })).toHaveCount(0);
      await page.screenshot({ path: `${SHOTS}/${vp.name}-no-push.png` });
    });
  });
}

test("notifications blocked (as in Chrome's incognito windows): the warning names the private window", async ({ page, context }) => {
  await context.addInitScript(() => {
    Object.defineProperty(Notification, "permission", { get: () => "denied" });
  });
  await openSignedIn(page, "/notifications");
  await expect(
    page.getByText(
      /Notifications are blocked for this site\..*In a private \(incognito\) window they are always blocked: open the panel in a normal window\./,
    ),
  )
    .toBeVisible();
  await expect(page.getByRole("button", { name: "Enable notifications on this device" })).toBeDisabled();
});
