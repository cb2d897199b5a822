// The one shape every alert has on its way to push devices and channels. Any area raises one with
//
//   ctx.bus.emit("alert", { kind: "backup-failed", title: "Backup failed", body: "No space left on device." });
//
// and the dispatcher (dispatcher.ts) merges repeats and hands it to every consumer (the Web Push notifier
// and the channels), each of which sends it to the devices and channels subscribed to `kind`. An alert
// raised on a server's bus (or emitted with a ServerRef) is about that server: it goes only to the devices
// and channels that chose that server, and its title names it.

import type { AlertEvent } from "../../shared/alerts.ts";
import type { ServerRef } from "../lib/events.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import { Invalid } from "../lib/errors.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";

export interface Alert {
  kind: AlertEvent;
  /** Short: the notification's title, the embed's title. */
  title: string;
  /** One or two sentences. */
  body: string;
  /** Extra facts shown as fields (Discord), lines (Slack, ntfy) or as they are (webhook). */
  details?: Record<string, string>;
  /** Devices and channels subscribed to any of these get it too ("running again after a crash" goes to crash subscribers). */
  also?: AlertEvent[];
  /** Repeats are merged per server, kind and key (default: the kind alone); e.g. a player's name for joins. */
  key?: string;
  /** Never merged: what an admin did on purpose (Save & Stop, a start) is news each time. */
  noMerge?: boolean;
  /** Page of the panel that shows more (push click target). Default "/". */
  url?: string;
  /** ISO time of the event; the dispatcher fills it in when missing. */
  at?: string;
}

/** An alert as consumers get it: complete, with how many times it happened within the merge window. */
export interface DispatchedAlert extends Alert {
  at: string;
  url: string;
  /** 1, or the number of occurrences this message stands for ("crashed 3 times in 5 minutes"). */
  count: number;
  /** The events whose subscribers get it: kind plus `also`. */
  audience: AlertEvent[];
  /** The server it is about (its name already leads the title); null: the panel's own alert. */
  server: { id: number; name: string } | null;
}

export interface AlertConsumer {
  /** Only queues: must never wait for a network. */
  deliver(alert: DispatchedAlert): void;
}

/**
 * The panel's own events: about the panel or the game versions every server shares, never about one server.
 * Every other event is about a server.
 */
export const PANEL_EVENTS: readonly AlertEvent[] = [
  "factorio-update",
  "disk-low",
  "new-sign-in",
  "user-changed",
  "certificate",
];

/**
 * What alerts need to know about the servers: the registry's ids and names, and the roles (who may see a
 * server). The defaults describe a panel with one server (server 1) that every user sees.
 */
export interface ServerLookup {
  serverExists(id: number): boolean;
  serverName(id: number): string;
  canSee(userId: number, serverId: number): boolean;
}

export function serverLookup(given: Partial<ServerLookup> = {}): ServerLookup {
  return {
    serverExists: given.serverExists ?? ((id) => id === FIRST_SERVER),
    serverName: given.serverName ?? ((id) => `Server ${id}`),
    canSee: given.canSee ?? ((_userId, serverId) => serverId === FIRST_SERVER),
  };
}

/** Whether a device's or channel's `servers` (null: all) lets through an alert about `server` (null: the panel's). */
export function wantsServer(servers: readonly number[] | null, server: ServerRef | null): boolean {
  return server === null || servers === null || servers.includes(server.id);
}

/** A stored `servers` column: a JSON list of ids, or NULL for every server. */
export function serversOf(column: string | null): number[] | null {
  if (column === null) return null;
  const parsed = JSON.parse(column);
  return Array.isArray(parsed) ? parsed.filter(Number.isSafeInteger) : null;
}

/** The `servers` column of a list of ids (NULL: every server). */
export function serversColumn(servers: readonly number[] | null): string | null {
  return servers === null ? null : JSON.stringify(servers);
}

/**
 * A request's `servers`: null (every server), or a list of ids each of which `exists` (for a push device:
 * a server its user may see, so an id says nothing about servers the user has no role on). Sorted, no repeats.
 */
export function checkServers(value: unknown, exists: (id: number) => boolean): number[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every((v) => Number.isSafeInteger(v) && v > 0)) {
    throw new Invalid(PUSH_MSG.serversInvalid);
  }
  const ids = [...new Set(value as number[])].sort((a, b) => a - b);
  const unknown = ids.find((id) => !exists(id));
  if (unknown !== undefined) throw new Invalid(SERVERS_MSG.noSuchServer(unknown));
  return ids;
}
