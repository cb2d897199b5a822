// E2E fixtures for the installable app and Web Push: the fake push service as its own process (the
// panel trusts its CA), helpers to wait for the service worker, to stand in for PushManager.subscribe
// (headless Chromium cannot reach a push service) and to deliver a push to the service worker through
// the DevTools protocol.

// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import { adminApi, expect, type PanelProcess, ROOT, startPanelProcess, test as base } from "./fixtures.ts";
import type { FakeSubscription } from "../fake-push/service.ts";
import { startFakePush } from "../fake-push/launch.mjs";
import { test as gameTest } from "./game-fixtures.ts";

export { expect, startFakePush };

export type FakePush = Awaited<ReturnType<typeof startFakePush>>;

const CA_FILE = join(ROOT, "tests", "fake-push", "tls", "ca.pem");

const fakePushFixture = {
  fakePush: async ({}, use: (f: FakePush) => Promise<void>) => {
    const fake = await startFakePush();
    await use(fake);
    await fake.stop();
  },
};

/**
 * The panel's public push key, asked of the panel as the app asks it (signed in on a session of its own,
 * so the page's first visit still meets the sign-in form). Not read from vapid-keys.json: the panel makes
 * that file once its live side is built, after its first answer, so a test that reads it first can find
 * none.
 */
export async function panelPushKey(panel: PanelProcess): Promise<string> {
  const api = await adminApi(panel.url);
  return (await api("GET", "/api/push/key")).publicKey;
}

/** The panel options that make it trust the fake push service's certificate and allow its address (loopback). */
export const PUSH_PANEL_ARGS = ["--push-ca-file", CA_FILE, "--push-private-hosts", "127.0.0.1"];

/** `test` with a fake push service and a panel that trusts it. */
export const test = base.extend<{ fakePush: FakePush }>({
  ...fakePushFixture,
  panel: async ({}, use) => {
    const panel = await startPanelProcess({ args: PUSH_PANEL_ARGS });
    await use(panel);
    await panel.stop();
  },
});

/** `test` on a simulated Factorio (game-fixtures.ts), with the fake push service. */
export const testWithGame = gameTest.extend<{ fakePush: FakePush }>({
  ...fakePushFixture,
  panelArgs: [PUSH_PANEL_ARGS, { option: true }],
});

/** Waits until the service worker is active and controls the page. */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
    timeout: 30_000,
  });
}

/**
 * Makes PushManager.subscribe/getSubscription answer with `sub` (made by the fake push service for the
 * panel's key), since headless Chromium's real subscribe never reaches a push service.
 */
export async function stubPushManager(context: BrowserContext, sub: FakeSubscription): Promise<void> {
  await context.addInitScript((s) => {
    // Like a real browser, the subscription outlives a reload: it is kept in localStorage here.
    const KEY = "e2e.pushSubscriptionKey";
    const bytes = (k: string) =>
      Uint8Array.from(atob(k.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const make = (applicationServerKey: string) =>
      ({
        endpoint: s.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: bytes(applicationServerKey).buffer },
        getKey: (name: "p256dh" | "auth") => bytes(s.keys[name]).buffer,
        toJSON: () => ({ endpoint: s.endpoint, expirationTime: null, keys: s.keys }),
        unsubscribe: async () => {
          localStorage.removeItem(KEY);
          return true;
        },
      }) as unknown as PushSubscription;
    PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
      const k = options?.applicationServerKey;
      const view = k instanceof ArrayBuffer
        ? new Uint8Array(k)
        : ArrayBuffer.isView(k)
        ? new Uint8Array(k.buffer, k.byteOffset, k.byteLength)
        : new Uint8Array();
      const b64 = btoa(String.fromCharCode(...view)).replace(/\+/g, "-").replace(/\//g, "_").replace(
        /=+$/,
        "",
      );
      localStorage.setItem(KEY, b64);
      return make(b64);
    };
    PushManager.prototype.getSubscription = async function () {
      const k = localStorage.getItem(KEY);
      return k ? make(k) : null;
    };
  }, sub);
}

/** Delivers `data` to the page's service worker as a push, through the DevTools protocol. */
export async function deliverPush(page: Page, data: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  // Deliver only to an activated worker that is running: a push sent while Chromium is still starting
  // the worker (after a reload, on a busy machine) can be lost by the DevTools path.
  const ready = new Promise<{ registrationId: string; scopeURL: string }>((resolve) => {
    let scopeURL = "";
    let registrationId = "";
    const running = new Set<string>();
    const check = () => {
      if (registrationId && running.has(registrationId)) resolve({ registrationId, scopeURL });
    };
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const reg = registrations.find((r) => !r.isDeleted && new URL(r.scopeURL).origin === origin);
      if (!reg) return;
      registrationId = reg.registrationId;
      scopeURL = reg.scopeURL;
      void cdp.send("ServiceWorker.startWorker", { scopeURL }).catch(() => {});
      check();
    });
    cdp.on("ServiceWorker.workerVersionUpdated", ({ versions }) => {
      for (const v of versions) {
        if (v.status === "activated" && v.runningStatus === "running") running.add(v.registrationId);
        else running.delete(v.registrationId);
      }
      check();
    });
  });
  await cdp.send("ServiceWorker.enable");
  const { registrationId } = await ready;
  // Every push of the panel shows a notification. DevTools' delivery can still be lost while Chromium is
  // busy with the worker (seen on a fresh, loaded machine): delivered again while none shows. A
  // notification's tag replaces an earlier one with the same tag, so a repeat never adds a second.
  for (let attempt = 0; attempt < 3; attempt++) {
    await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId, data });
    const deadline = Date.now() + 8_000;
    while (Date.now() < deadline && (await shownNotifications(page)).length === 0) {
      await page.waitForTimeout(200);
    }
    if ((await shownNotifications(page)).length > 0) break;
  }
  await cdp.detach();
}

/** Titles of the notifications the service worker is showing. */
export async function shownNotifications(
  page: Page,
): Promise<{ title: string; body: string; tag: string; url: string }[]> {
  return await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      url: (n.data as { url: string }).url,
    }));
  });
}
