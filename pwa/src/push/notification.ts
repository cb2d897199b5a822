// What the service worker shows for a push, and where a click on it goes. Plain functions with no
// browser globals, so the app (DOM) and the service worker (WebWorker) type-check them alike and unit
// tests can call them.

import type { PushPayload } from "../../../shared/api.ts";

export interface ShownNotification {
  title: string;
  options: {
    body: string;
    tag: string;
    icon: string;
    badge: string;
    renotify: boolean;
    timestamp?: number;
    data: { url: string };
  };
}

const ICON = "/icons/icon-192.png";

/** Turns a push's data into a notification. Anything unexpected still shows something readable. */
export function notificationFor(text: string | null): ShownNotification {
  let payload: Partial<PushPayload> = {};
  try {
    const parsed = text ? JSON.parse(text) : null;
    if (parsed && typeof parsed === "object") payload = parsed as Partial<PushPayload>;
    else if (text) payload = { body: text };
  } catch {
    payload = { body: text ?? "" };
  }
  const at = typeof payload.at === "string" ? Date.parse(payload.at) : NaN;
  return {
    title: typeof payload.title === "string" && payload.title ? payload.title : "Factorio Panel",
    options: {
      body: typeof payload.body === "string" ? payload.body : "",
      tag: typeof payload.tag === "string" && payload.tag ? payload.tag : "factorio-panel",
      icon: ICON,
      badge: ICON,
      // A replaced notification (same tag) should still buzz: it is news.
      renotify: true,
      ...(Number.isNaN(at) ? {} : { timestamp: at }),
      data: { url: safeAppPath(payload.url) },
    },
  };
}

/** Only paths inside the panel: a push must never send the user to another site. */
export function safeAppPath(url: unknown): string {
  if (typeof url !== "string" || !url.startsWith("/") || url.startsWith("//") || url.startsWith("/\\")) {
    return "/";
  }
  return url;
}

/** Of the panel's open windows, the one to focus: a visible one first, then the most recent. */
export function pickWindow<T extends { url: string; visibilityState?: string; focused?: boolean }>(
  windows: readonly T[],
  origin: string,
): T | undefined {
  const ours = windows.filter((w) => {
    try {
      return new URL(w.url).origin === origin;
    } catch {
      return false;
    }
  });
  return ours.find((w) => w.focused) ?? ours.find((w) => w.visibilityState === "visible") ?? ours[0];
}

/** The message the service worker posts to a focused window so its router opens `url` (no reload). */
export interface OpenMessage {
  type: "panel-open";
  url: string;
}
