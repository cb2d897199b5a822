// The sidebar (desktop) and the menu (phone): every page's link is in view at 1280x800 and 390x844, the
// current page's link is in view, and where a window is too short for all of them a "More below" hint
// says that there is more. Screenshots go to test-results/e2e/navigation/.

import type { Page } from "@playwright/test";
import { expect, openSidebar, openSignedIn, test } from "./fixtures.ts";

/** Every link an admin sees (pwa/src/nav.tsx). */
const LINKS = [
  "Controls",
  "Console",
  "Logs",
  "Server Settings",
  "Schedules",
  "Saves",
  "Backups",
  "Mods",
  "Game Settings",
  "Players",
  "Player history",
  "Users",
  "Activity",
  "HTTPS",
  "Servers",
  "Account",
  "Notifications",
  "Help",
];

const SHOTS = "test-results/e2e/navigation";

async function expectEveryLinkInView(page: Page) {
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link")).toHaveCount(LINKS.length);
  for (const label of LINKS) {
    await expect(nav.getByRole("link", { name: label, exact: true }), label).toBeInViewport({ ratio: 1 });
  }
  await expect(page.getByRole("button", { name: /Logout/ })).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId("nav-more-below")).toHaveCount(0);
}

for (
  const vp of [
    { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
  ]
) {
  test.describe(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}`, () => {
    test.use({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });

    test("every page's link is in view, the last ones included", async ({ page }) => {
      await openSignedIn(page, "/help");
      await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
      await openSidebar(page);
      await expectEveryLinkInView(page);
      await page.screenshot({ path: `${SHOTS}/${vp.name}-menu.png` });
    });
  });
}

test.describe("a short window", () => {
  test.use({ viewport: { width: 1280, height: 560 } });

  test("hints at the links below the fold, and the hint goes once they are in view", async ({ page }) => {
    await openSignedIn(page, "/saves");
    const nav = page.getByRole("navigation", { name: "Main" });
    const more = page.getByTestId("nav-more-below");
    await expect(more).toBeVisible();
    await expect(more).toHaveText("More below");
    await expect(nav.getByRole("link", { name: "Help", exact: true })).not.toBeInViewport();
    await page.screenshot({ path: `${SHOTS}/short-window.png` });
    // A click on the hint scrolls on (here to the end, a little over a screen's worth of links): the hint is gone.
    await more.click();
    await expect(more).toBeHidden();
    await expect(nav.getByRole("link", { name: "Help", exact: true })).toBeInViewport({ ratio: 1 });
    // The current page's link is brought into view when it is one of the last.
    await nav.getByRole("link", { name: "Notifications", exact: true }).click();
    await page.reload();
    await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Notifications", exact: true })).toBeInViewport({ ratio: 1 });
  });
});
