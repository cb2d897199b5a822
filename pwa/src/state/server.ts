// The game server's status as the app knows it: fetched on sign-in, pushed over /ws on every change (and
// refetched then, as the spec asks), and remembered with the time it was last confirmed, so an offline
// start can still say what it last saw.

import { proxy } from "valtio";
import type { ServerStatus } from "../../../shared/api.ts";
import { call } from "../api/client.ts";
import { socket } from "./socket.ts";

const STORAGE_KEY = "panel.lastStatus";

export interface LastKnown {
  status: ServerStatus;
  /** ISO time the status was last confirmed by the server. */
  at: string;
}

function loadLastKnown(): LastKnown | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as LastKnown) : null;
  } catch {
    return null;
  }
}

export const server = proxy<{ status: ServerStatus | null; lastKnown: LastKnown | null }>({
  status: null,
  lastKnown: loadLastKnown(),
});

export function applyStatus(status: ServerStatus): void {
  server.status = status;
  server.lastKnown = { status, at: new Date().toISOString() };
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(server.lastKnown));
  } catch {
    // storage full or disabled: the badge still works
  }
}

export async function refreshStatus(): Promise<ServerStatus | null> {
  try {
    const status = await call("GET /api/server/status", {}, { quiet: true });
    applyStatus(status);
    return status;
  } catch {
    server.status = null;
    return null;
  }
}

let unsubscribe: (() => void) | undefined;

export function startStatusUpdates(): void {
  void refreshStatus();
  unsubscribe ??= socket.subscribe("server_status", (message) => {
    try {
      applyStatus(JSON.parse(message) as ServerStatus);
    } catch {
      // not a status: ignore, the refetch below still runs
    }
    void refreshStatus();
  });
}

export function stopStatusUpdates(): void {
  unsubscribe?.();
  unsubscribe = undefined;
  server.status = null;
}

export type BadgeLabel = "Running" | "Stopped" | "Starting" | "Stopping" | "Unknown";

const BADGE: Record<ServerStatus["status"], BadgeLabel> = {
  running: "Running",
  stopped: "Stopped",
  starting: "Starting",
  stopping: "Stopping",
};

/**
 * The badge label: the spec's Running and Stopped, and Starting and Stopping in between (a badge saying
 * "Unknown" while the page says "Stopping" reads as a fault). Unknown only when nothing is known.
 */
export function badgeOf(status: Pick<ServerStatus, "status"> | null): BadgeLabel {
  return status ? BADGE[status.status] ?? "Unknown" : "Unknown";
}

/**
 * What to show as the server's status: the live one, or offline the last one the panel confirmed
 * (flagged, with its time), so the badge, the Controls card and the offline banner agree.
 */
export function shownStatus(
  live: ServerStatus | null,
  lastKnown: LastKnown | null,
  online: boolean,
): { status: ServerStatus | null; confirmedAt: string | null } {
  if (online || !lastKnown) return { status: live, confirmedAt: null };
  return { status: lastKnown.status, confirmedAt: lastKnown.at };
}
