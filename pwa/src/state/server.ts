// The game servers' status as the app knows it: fetched on sign-in, pushed over /ws on every change (and
// refetched then, as the spec asks), and remembered with the time it was last confirmed, so an offline
// start can still say what it last saw. Kept per server; `server` is the one shown.

import { proxy } from "valtio";
import type { ServerStatus } from "../../../shared/api.ts";
import { FIRST_SERVER } from "../../../shared/servers.ts";
import { serverApi } from "../api/server.ts";
import { socket } from "./socket.ts";
import { current } from "./current.ts";
import { forgetServers } from "./servers.ts";

/** Server 1's key is today's, so an upgraded app still shows what it last saw offline. */
const STORAGE_KEY = "panel.lastStatus";

function storageKey(id: number): string {
  return id === FIRST_SERVER ? STORAGE_KEY : `${STORAGE_KEY}.${id}`;
}

export interface LastKnown {
  status: ServerStatus;
  /** ISO time the status was last confirmed by the server. */
  at: string;
}

export interface KnownStatus {
  status: ServerStatus | null;
  lastKnown: LastKnown | null;
}

function loadLastKnown(id: number): LastKnown | null {
  try {
    const raw = localStorage.getItem(storageKey(id));
    return raw ? (JSON.parse(raw) as LastKnown) : null;
  } catch {
    return null;
  }
}

/** Every server's status the app has seen, by id (the overview shows them all). */
export const statuses = proxy<Record<number, KnownStatus>>({});

/** The status of the server shown (current.server): what the badge and the pages read. */
export const server = proxy<KnownStatus>({ status: null, lastKnown: loadLastKnown(current.server) });

export function knownStatus(id: number): KnownStatus {
  return statuses[id] ??= { status: null, lastKnown: loadLastKnown(id) };
}

/** A status server `id` answered or pushed (absent: the server shown). */
export function applyStatus(status: ServerStatus, id: number = current.server): void {
  const known = knownStatus(id);
  known.status = status;
  known.lastKnown = { status, at: new Date().toISOString() };
  if (id === current.server) Object.assign(server, known);
  try {
    localStorage.setItem(storageKey(id), JSON.stringify(known.lastKnown));
  } catch {
    // storage full or disabled: the badge still works
  }
}

export async function refreshStatus(id: number = current.server): Promise<ServerStatus | null> {
  try {
    const status = await serverApi.status(id);
    applyStatus(status, id);
    return status;
  } catch {
    knownStatus(id).status = null;
    if (id === current.server) server.status = null;
    return null;
  }
}

/** The server whose status room is followed (the one shown), while signed in. */
let watching: { id: number; stop: () => void } | undefined;

function watch(id: number): void {
  if (watching?.id === id) return;
  watching?.stop();
  const stop = socket.subscribe(
    "server_status",
    (message) => {
      try {
        applyStatus(JSON.parse(message) as ServerStatus, id);
      } catch {
        // not a status: ignore, the refetch below still runs
      }
      void refreshStatus(id);
    },
    undefined,
    id,
  );
  watching = { id, stop };
}

export function startStatusUpdates(): void {
  void refreshStatus();
  watch(current.server);
}

export function stopStatusUpdates(): void {
  watching?.stop();
  watching = undefined;
  server.status = null;
  for (const known of Object.values(statuses)) known.status = null;
  forgetServers();
}

/**
 * Another server is shown (the address changed): the badge and the pages read its status, and its
 * status room is followed instead of the last one's.
 */
export function showServer(id: number): void {
  if (current.server === id) return;
  current.server = id;
  Object.assign(server, knownStatus(id));
  if (watching) {
    watch(id);
    void refreshStatus(id);
  }
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
