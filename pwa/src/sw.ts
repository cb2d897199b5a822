/// <reference lib="webworker" />
// The service worker. It precaches the app shell (the build injects the list), answers every navigation
// outside /api and /ws with index.html so the installed app opens offline, shows push alerts, and opens
// or focuses the panel when one is clicked. A new version waits until the user chooses "Reload"
// (main.tsx sends SKIP_WAITING), so a running session is never swapped underneath.

import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import { clientsClaim } from "workbox-core";
import { notificationFor, type OpenMessage, pickWindow } from "./push/notification.ts";

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: (string | { url: string; revision: string | null })[];
};

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(
  new NavigationRoute(createHandlerBoundToURL("/index.html"), { denylist: [/^\/api(\/|$)/, /^\/ws(\/|$)/] }),
);
// The first install takes the open page at once, so it works offline from its first visit.
clientsClaim();

self.addEventListener("message", (event) => {
  if ((event.data as { type?: string } | null)?.type === "SKIP_WAITING") void self.skipWaiting();
});

self.addEventListener("push", (event) => {
  const { title, options } = notificationFor(event.data ? event.data.text() : null);
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const path = (event.notification.data as { url?: string } | null)?.url ?? "/";
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = pickWindow(windows, self.location.origin);
    if (open) {
      // focus() can be refused (no user activation); the window should still go to the page.
      const target = await open.focus().catch(() => open);
      target.postMessage({ type: "panel-open", url: path } satisfies OpenMessage);
      return;
    }
    await self.clients.openWindow(path);
  })());
});
