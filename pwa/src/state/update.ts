// The service worker from the app's side: registered in production builds only (workbox-window). A new
// version installs in the background and then waits; the app shows "New version available - Reload",
// and only the user's click lets it take over (then the page reloads once, under the new version).

import { proxy } from "valtio";
import { Workbox } from "workbox-window";
import { onBackOnline } from "./connection.ts";

/** How often a long-open app looks for a new version. */
const CHECK_EVERY_MS = 60 * 60_000;

export const update = proxy<{ available: boolean }>({ available: false });

let wb: Workbox | null = null;

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !("serviceWorker" in navigator)) return;
  wb = new Workbox("/sw.js");
  wb.addEventListener("waiting", () => {
    update.available = true;
  });
  void wb.register().catch(() => {
    // No service worker (private mode, an old browser): the app still works, just not offline.
  });
  const check = () => void wb?.update().catch(() => {});
  setInterval(check, CHECK_EVERY_MS);
  onBackOnline(check);
}

/** The user chose Reload: let the waiting version take over, then reload into it. */
export function applyUpdate(): void {
  if (!wb) return location.reload();
  wb.addEventListener("controlling", () => location.reload());
  wb.messageSkipWaiting();
}

/** Listens for the service worker asking to open a panel page (a notification was clicked). */
export function onOpenRequest(open: (url: string) => void): () => void {
  if (!("serviceWorker" in navigator)) return () => {};
  const listener = (e: MessageEvent) => {
    const data = e.data as { type?: string; url?: unknown } | null;
    if (
      data?.type === "panel-open" && typeof data.url === "string" && data.url.startsWith("/") &&
      !data.url.startsWith("//")
    ) {
      open(data.url);
    }
  };
  navigator.serviceWorker.addEventListener("message", listener);
  return () => navigator.serviceWorker.removeEventListener("message", listener);
}
