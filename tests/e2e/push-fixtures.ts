// E2E fixtures for the installable app and Web Push: the fake push service as its own process (the
// panel trusts its CA), helpers to wait for the service worker, to stand in for PushManager.subscribe
// (headless Chromium cannot reach a push service) and to deliver a push to the service worker through
// the DevTools protocol.

import { spawn } from "node:child_process";
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import { expect, ROOT, startPanelProcess, test as base } from "./fixtures.ts";
import type { FakeSubscription, ReceivedPush } from "../fake-push/service.ts";

export { expect };

export interface FakePush {
  origin: string;
  caFile: string;
  subscribe(applicationServerKey: string): Promise<FakeSubscription>;
  respond(id: string, status: number, times?: number): Promise<void>;
  /** Attempts after `after`, waiting up to `waitMs` for at least one. */
  received(after?: number, waitMs?: number): Promise<ReceivedPush[]>;
  /** The first attempt after `after` that matches. */
  waitFor(match: (r: ReceivedPush) => boolean, opts?: { after?: number; timeoutMs?: number }): Promise<ReceivedPush>;
  stop(): Promise<void>;
}

export async function startFakePush(): Promise<FakePush> {
  const child = spawn(join(ROOT, "node_modules/.bin/deno"), ["run", "-A", "tests/fake-push/main.ts"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr!.on("data", (d) => (out += d));
  const info = await new Promise<{ origin: string; control: string; caFile: string }>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`fake push service did not start:\n${out}`)), 30_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line));
      }
    });
    child.on("exit", (code) => fail(new Error(`fake push service exited with ${code}:\n${out}`)));
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(info.control + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake push ${method} ${path}: ${res.status} ${await res.text()}`);
    return await res.json();
  };
  const fake: FakePush = {
    origin: info.origin,
    caFile: info.caFile,
    subscribe: (applicationServerKey) => call("POST", "/subscriptions", { applicationServerKey }),
    respond: async (id, status, times) => void (await call("POST", `/subscriptions/${id}/respond`, { status, times })),
    received: (after = 0, waitMs = 0) => call("GET", `/received?after=${after}&wait=${waitMs}`),
    waitFor: async (match, { after = 0, timeoutMs = 30_000 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      let seen = after;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error("no matching push arrived at the fake push service");
        const batch: ReceivedPush[] = await fake.received(seen, Math.min(left, 10_000));
        const hit = batch.find(match);
        if (hit) return hit;
        if (batch.length) seen = batch[batch.length - 1].seq;
      }
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
  return fake;
}

/** `test` with a fake push service and a panel that trusts it. */
export const test = base.extend<{ fakePush: FakePush }>({
  fakePush: async ({}, use) => {
    const fake = await startFakePush();
    await use(fake);
    await fake.stop();
  },
  panel: async ({ fakePush }, use) => {
    const panel = await startPanelProcess({ args: ["--push-ca-file", fakePush.caFile] });
    await use(panel);
    await panel.stop();
  },
});

/** Waits until the service worker is active and controls the page. */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
}

/**
 * Makes PushManager.subscribe/getSubscription answer with `sub` (made by the fake push service for the
 * panel's key), since headless Chromium's real subscribe never reaches a push service.
 */
export async function stubPushManager(context: BrowserContext, sub: FakeSubscription): Promise<void> {
  await context.addInitScript((s) => {
    // Like a real browser, the subscription outlives a reload: it is kept in localStorage here.
    const KEY = "e2e.pushSubscriptionKey";
    const bytes = (k: string) => Uint8Array.from(atob(k.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const make = (applicationServerKey: string) => ({
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
      const view = k instanceof ArrayBuffer ? new Uint8Array(k) : ArrayBuffer.isView(k) ? new Uint8Array(k.buffer, k.byteOffset, k.byteLength) : new Uint8Array();
      const b64 = btoa(String.fromCharCode(...view)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
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
  const registrationId = await new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const reg = registrations.find((r) => !r.isDeleted && new URL(r.scopeURL).origin === new URL(page.url()).origin);
      if (reg) resolve(reg.registrationId);
    });
    void cdp.send("ServiceWorker.enable");
  });
  await cdp.send("ServiceWorker.deliverPushMessage", { origin: new URL(page.url()).origin, registrationId, data });
  await cdp.detach();
}

/** Titles of the notifications the service worker is showing. */
export async function shownNotifications(page: Page): Promise<{ title: string; body: string; tag: string; url: string }[]> {
  return await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url: string }).url }));
  });
}
