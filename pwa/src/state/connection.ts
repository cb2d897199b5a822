// Whether the panel answers. The api client reports every answer and every request that got none; the
// socket reports when it opens. While there is no connection the app probes every few seconds (and at
// once when the browser says it is back online or the app comes to the foreground); the first answer
// runs the "back online" handlers, which refresh the session, the status and the socket.

import { proxy } from "valtio";

export const PROBE_MS = 5000;

export const connection = proxy<{ online: boolean }>({ online: true });

let probe: () => void = () => {};
let timer: ReturnType<typeof setInterval> | undefined;
const backHandlers = new Set<() => void>();

/** What to run to find out whether the panel answers again (set by the session store). */
export function setProbe(fn: () => void): void {
  probe = fn;
}

/** Runs `fn` each time the connection comes back; returns the function that stops that. */
export function onBackOnline(fn: () => void): () => void {
  backHandlers.add(fn);
  return () => backHandlers.delete(fn);
}

/** A request got no answer at all. */
export function reportNoAnswer(): void {
  if (!connection.online) return;
  connection.online = false;
  clearInterval(timer);
  timer = setInterval(() => probe(), PROBE_MS);
}

/** The panel answered (any HTTP status, or the socket opened). */
export function reportAnswer(): void {
  if (connection.online) return;
  connection.online = true;
  clearInterval(timer);
  timer = undefined;
  for (const fn of [...backHandlers]) fn();
}

if (typeof window !== "undefined") {
  window.addEventListener("online", () => probe());
  window.addEventListener("offline", () => reportNoAnswer());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !connection.online) probe();
  });
}
