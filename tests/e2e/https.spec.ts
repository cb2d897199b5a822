// HTTPS for phones, end to end in Chromium (issue 50): the panel started by the launcher with
// --https-domain gets its certificate from pebble (a real ACME CA) by HTTP-01 before it listens, and
// Chromium, trusting pebble's root through an NSS store in a HOME of its own (as a phone trusts Let's
// Encrypt), opens it over HTTP/2 as panel.test: a secure context, the service worker in control after a
// reload, no installability errors, and push notifications switched on against the fake push service.
// The same with the panel's own CA (--local-ca), trusted the way a device does after downloading /ca.crt.
// And the other side: over plain HTTP from another address, Controls says why the app cannot be installed.
// Screenshots go to test-results/e2e/https/.

import { execFileSync } from "node:child_process";
import { get as httpsGet } from "node:https";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "@playwright/test";
import { ADMIN_PASSWORD, expect, type PanelProcess, signIn, startPanelProcess, test } from "./fixtures.ts";
import {
  type FakePush,
  PUSH_PANEL_ARGS,
  startFakePush,
  stubPushManager,
  waitForServiceWorker,
} from "./push-fixtures.ts";
import { startPebbleProcess } from "../pebble/launch.mjs";
import { CHROMIUM_ARGS } from "../../playwright.config.ts";

const SHOTS = "test-results/e2e/https";
const NAME = "panel.test";

/** A HOME whose NSS store trusts `root` for TLS servers: Chromium on Linux reads $HOME/.pki/nssdb. */
function homeTrusting(root: string): string {
  const home = mkdtempSync(join(tmpdir(), "chromium-home-"));
  const db = `sql:${join(home, ".pki", "nssdb")}`;
  execFileSync("mkdir", ["-p", join(home, ".pki", "nssdb")]);
  execFileSync("certutil", ["-d", db, "-N", "--empty-password"]);
  writeFileSync(join(home, "root.pem"), root);
  execFileSync("certutil", [
    "-d",
    db,
    "-A",
    "-t",
    "C,,",
    "-n",
    "pebble test root",
    "-i",
    join(home, "root.pem"),
  ]);
  return home;
}

/** Chromium with its own profile on disk (an incognito context is never installable: "in-incognito"),
 * `home`'s NSS store for its trusted roots, and `name` resolved to this machine. */
async function trustingChromium(
  home: string,
  name: string,
  vp: { viewport: { width: number; height: number }; isMobile: boolean; hasTouch: boolean },
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "chromium-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${name} 127.0.0.1`],
    env: { ...process.env, HOME: home },
    viewport: vp.viewport,
    isMobile: vp.isMobile,
    hasTouch: vp.hasTouch,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signed in over HTTPS: Controls without the plain-HTTP note, the service worker in control after a
 * reload, and nothing Chromium holds against installing the app. */
async function expectInstallable(context: BrowserContext, page: Page) {
  await signIn(page, "admin", ADMIN_PASSWORD);
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
  await expect(page.getByTestId("https-note")).toHaveCount(0);
  await waitForServiceWorker(page);
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
  expect(installabilityErrors).toEqual([]);
}

const state: {
  pebble?: Awaited<ReturnType<typeof startPebbleProcess>>;
  fakePush?: FakePush;
  panel?: PanelProcess;
  home?: string;
  port?: number;
} = {};

test.describe("over HTTPS with a certificate from an ACME CA", () => {
  test.describe.configure({ mode: "serial" });

  test.beforeAll(async () => {
    state.pebble = await startPebbleProcess();
    state.fakePush = await startFakePush();
    state.panel = await startPanelProcess({
      args: ["--https-domain", NAME, ...state.pebble.args, ...PUSH_PANEL_ARGS],
    });
    state.port = Number(new URL(state.panel.url).port);
    expect(state.panel.url).toMatch(/^https:/);
    state.home = homeTrusting(state.pebble.root);
  });

  test.afterAll(async () => {
    await state.panel?.stop();
    await state.fakePush?.stop();
    await state.pebble?.stop();
    if (state.home) rmSync(state.home, { recursive: true, force: true });
  });

  for (
    const vp of [
      { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
    ]
  ) {
    test(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}: the app opens over HTTP/2 with pebble's certificate, installs, and turns notifications on`, async () => {
      const { home, fakePush, port } = state as Required<typeof state>;
      const origin = `https://${NAME}:${port}`;
      const { context, close } = await trustingChromium(home, NAME, vp);
      try {
        const page = await context.newPage();
        const res = await page.goto(`${origin}/`);
        expect(res!.status()).toBe(200);
        // No certificate error was clicked through: Chromium trusts the chain pebble issued for the name.
        const security = await res!.securityDetails();
        expect(security?.issuer).toMatch(/Pebble/);
        expect(security?.subjectName).toBe(NAME);
        expect(
          await page.evaluate(() =>
            performance.getEntriesByType("navigation").map((e) =>
              (e as PerformanceNavigationTiming).nextHopProtocol
            )
          ),
        )
          .toEqual(["h2"]);
        expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
        await expectInstallable(context, page);
        await page.screenshot({ path: `${SHOTS}/${vp.name}-controls.png` });

        // Push: the panel's key, a subscription the fake push service made for it, and a test push sent.
        const key = await page.evaluate(async () => (await (await fetch("/api/push/key")).json()).publicKey);
        const sub = await fakePush.subscribe(key);
        await context.grantPermissions(["notifications"], { origin });
        await stubPushManager(context, sub);
        await page.goto(`${origin}/notifications`);
        await page.getByRole("button", { name: "Enable notifications on this device" }).click();
        await expect(page.getByTestId("flash").filter({ hasText: /^Notifications are on for / }))
          .toBeVisible();
        await page.getByRole("button", { name: "Send test notification" }).click();
        const received = await fakePush.waitFor((r) => r.subscriptionId === sub.id && r.status === 201);
        expect(JSON.parse(received.payload!)).toMatchObject({ kind: "test" });
        await page.screenshot({ path: `${SHOTS}/${vp.name}-notifications.png`, fullPage: true });

        // Settings > HTTPS shows the certificate pebble issued.
        await page.goto(`${origin}/settings/https`);
        await expect(page.getByText(NAME).first()).toBeVisible();
        await expect(page.getByText(/Pebble/).first()).toBeVisible();
        await page.screenshot({ path: `${SHOTS}/${vp.name}-settings-https.png`, fullPage: true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
      } finally {
        await close();
      }
    });
  }
});

test.describe("over HTTPS with the panel's own CA (--local-ca)", () => {
  test.describe.configure({ mode: "serial" });
  const local: { panel?: PanelProcess; home?: string } = {};

  test.beforeAll(async () => {
    local.panel = await startPanelProcess({ args: ["--local-ca"] });
    expect(local.panel.url).toMatch(/^https:/);
    // What a device downloads before it trusts anything: /ca.crt, public (its certificate is not trusted yet).
    const pem = await new Promise<string>((resolve, reject) => {
      httpsGet(`${local.panel!.url}/ca.crt`, { rejectUnauthorized: false }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on(
          "end",
          () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode} ${text}`))),
        );
      }).on("error", reject);
    });
    expect(pem).toContain("BEGIN CERTIFICATE");
    local.home = homeTrusting(pem);
  });

  test.afterAll(async () => {
    await local.panel?.stop();
    if (local.home) rmSync(local.home, { recursive: true, force: true });
  });

  for (
    const vp of [
      { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
    ]
  ) {
    test(`${vp.name} ${vp.viewport.width}x${vp.viewport.height}: a device that trusts the local CA opens the app by the machine's .local name, and it installs`, async () => {
      const { panel, home } = local as Required<typeof local>;
      // A LAN name the local CA's certificate covers (the machine's name as .local), not localhost.
      const name = `${hostname().toLowerCase().split(".")[0]}.local`;
      const origin = `https://${name}:${new URL(panel.url).port}`;
      const { context, close } = await trustingChromium(home, name, vp);
      try {
        const page = await context.newPage();
        const res = await page.goto(`${origin}/`);
        expect(res!.status()).toBe(200);
        const security = await res!.securityDetails();
        expect(security?.issuer).toMatch(/Factorio Panel local CA/);
        expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
        await expectInstallable(context, page);
        // Settings > HTTPS names the local CA and how to trust it on a device.
        await page.goto(`${origin}/settings/https`);
        await expect(page.getByText(/Factorio Panel local CA/).first()).toBeVisible();
        await page.screenshot({ path: `${SHOTS}/${vp.name}-local-ca.png`, fullPage: true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
      } finally {
        await close();
      }
    });
  }
});

test.describe("over plain HTTP from another address", () => {
  for (
    const vp of [
      { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      { name: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
    ]
  ) {
    test(`${vp.name}: Controls says why the app cannot be installed, and leads an admin to Settings > HTTPS`, async ({ panel }) => {
      // The machine's own name (the host check accepts it), which is not localhost: no secure context.
      const name = `${hostname().toLowerCase().split(".")[0]}.local`;
      const browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
        args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${name} 127.0.0.1`],
      });
      try {
        const page: Page = await browser.newPage({
          viewport: vp.viewport,
          isMobile: vp.isMobile,
          hasTouch: vp.hasTouch,
        });
        await page.goto(`http://${name}:${new URL(panel.url).port}/`);
        await signIn(page);
        const note = page.getByTestId("https-note");
        await expect(note).toContainText("This browser cannot install the panel as an app or get its alerts");
        await expect(note).toContainText(
          "Browsers allow both only over HTTPS, and this page came over plain HTTP.",
        );
        await page.screenshot({ path: `${SHOTS}/${vp.name}-plain-http.png` });
        await note.getByRole("link", { name: "Set up HTTPS" }).click();
        await expect(page).toHaveURL(/\/settings\/https$/);
        await page.screenshot({ path: `${SHOTS}/${vp.name}-plain-http-settings.png`, fullPage: true });
      } finally {
        await browser.close();
      }
    });
  }
});
