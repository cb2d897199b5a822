// This browser's side of Web Push: can it receive pushes here, is it subscribed, and turning alerts on
// and off (browser permission + PushManager subscription + the panel's record of it).

import { pushApi } from "../api/push.ts";
import type { PushDevice, PushSubscriptionJson } from "../../../shared/api.ts";
import { orTimeout } from "../../../shared/util.ts";

export type PushSupport =
  /** Ready to ask. */
  | "ok"
  /** Push needs a secure context: https, or localhost. */
  | "insecure"
  /** No Push API in this browser (or iOS outside an installed home-screen app). */
  | "unsupported";

export function pushSupport(): PushSupport {
  if (typeof window === "undefined") return "unsupported";
  if (!window.isSecureContext) return "insecure";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return "unsupported";
  }
  return "ok";
}

/** iPhone/iPad Safari only offers push to apps added to the Home Screen. */
export function needsHomeScreen(): boolean {
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent);
  const standalone = window.matchMedia?.("(display-mode: standalone)").matches ||
    (navigator as Navigator & { standalone?: boolean }).standalone === true;
  return ios && !standalone;
}

export function permission(): NotificationPermission {
  return "Notification" in window ? Notification.permission : "denied";
}

export class PushSetupError extends Error {}

async function registration(): Promise<ServiceWorkerRegistration> {
  const reg = await navigator.serviceWorker.getRegistration();
  if (!reg) {
    throw new PushSetupError("The app's service worker is not running yet. Reload the page and try again.");
  }
  return reg;
}

export async function browserSubscription(): Promise<PushSubscription | null> {
  if (pushSupport() !== "ok") return null;
  const reg = await navigator.serviceWorker.getRegistration();
  return (await reg?.pushManager.getSubscription()) ?? null;
}

export function base64urlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const b64 = value.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(value.length / 4) * 4, "=");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function sameKey(key: ArrayBuffer | null | undefined, publicKey: string): boolean {
  if (!key) return false;
  const a = new Uint8Array(key);
  const b = base64urlToBytes(publicKey);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** What enabling is busy with, for the page to say while the browser is waiting. */
export type EnableStep = "permission" | "push-service" | "saving";

/**
 * How long the browser's push service may take to register this device. It answers in a second or two
 * where it can be reached; where it cannot (no internet, a browser or network that blocks it, Chrome
 * without Google's servers) the browser itself waits 20 seconds or more before it fails, with the
 * button greyed out and nothing said meanwhile.
 */
export const PUSH_SERVICE_TIMEOUT_S = 20;

/**
 * Asks for permission (call it from a click), subscribes this browser with the panel's VAPID key (a
 * subscription made for another key, e.g. before the panel's keys were renewed, is replaced) and stores
 * it for the signed-in user. `onStep` hears what it is waiting for. A subscription that arrives after the
 * timeout stays in the browser, and the next try uses it at once.
 */
export async function enableOnThisDevice(onStep: (step: EnableStep) => void = () => {}): Promise<PushDevice> {
  onStep("permission");
  const granted = await Notification.requestPermission();
  if (granted !== "granted") {
    throw new PushSetupError(
      granted === "denied"
        ? `Notifications are blocked for this site. Allow them in the browser's site settings, then try again. ${PRIVATE_WINDOW_BLOCKS}`
        : "Notifications were not allowed. Press the button again to be asked once more.",
    );
  }
  const reg = await registration();
  const { publicKey } = await pushApi.key();
  onStep("push-service");
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub.options.applicationServerKey, publicKey)) {
    await sub.unsubscribe();
    sub = null;
  }
  try {
    sub ??= await orTimeout(
      reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlToBytes(publicKey) }),
      PUSH_SERVICE_TIMEOUT_S * 1000,
      () => new PushSetupError(PUSH_SERVICE_SILENT),
    );
  } catch (e) {
    if (e instanceof PushSetupError) throw e;
    throw new PushSetupError(
      `The browser could not subscribe to push messages: ${(e as Error).message}. ${PUSH_SERVICE_HINT}`,
    );
  }
  onStep("saving");
  return await pushApi.subscribe({ subscription: sub.toJSON() as PushSubscriptionJson });
}

/** Why notifications can be off in a private window, said wherever the browser refuses them. */
export const PRIVATE_WINDOW_BLOCKS =
  "In a private (incognito) window they are always blocked: open the panel in a normal window.";

const PUSH_SERVICE_HINT =
  "The browser registers each device with its push service over the internet (Google's for Chrome and Edge, Mozilla's for Firefox, Apple's for Safari); a private window, a browser that turns it off (Brave, by default) or a network that blocks it stops that.";

const PUSH_SERVICE_SILENT =
  `The browser's push service did not answer within ${PUSH_SERVICE_TIMEOUT_S} seconds, so notifications are not on. ${PUSH_SERVICE_HINT} Check the connection and try again.`;

/**
 * Removes this browser's subscription, from the panel first (while signed in) and then from the browser.
 * `quiet` (at logout): no flash if the panel has no such device for this user.
 */
export async function disableOnThisDevice({ quiet = false } = {}): Promise<void> {
  const sub = await browserSubscription();
  if (!sub) return;
  await pushApi.unsubscribe({ endpoint: sub.endpoint }, { quiet });
  await sub.unsubscribe().catch(() => false);
}
