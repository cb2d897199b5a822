// The one place alerts pass through: it listens to "alert" on the bus, merges repeats and hands each
// alert to every consumer (the Web Push notifier, the channels). Consumers only queue, so raising an
// alert never waits for a network.
//
// Merging: the first alert of a kind (and key) goes out at once and opens a window. Repeats within the
// window are counted, not sent; when the window closes and there were repeats, one message says how many
// ("Crashed 3 times in 5 minutes", the latest one's text following), and a new window opens, so a crash
// loop sends one message per window instead of one per crash. Windows are per server: two servers'
// crashes are two messages.
//
// An alert about a server (raised on its bus, or emitted with a ServerRef) leads its title with the
// server's name ("Main map: Factorio server crashed") and its click target is that server's page.

import type { EventBus, ServerRef } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import { ALERT_CATALOGUE } from "../../shared/alerts.ts";
import { type Alert, type AlertConsumer, type DispatchedAlert, PANEL_EVENTS } from "./alert.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";

export const MERGE_WINDOW_MS = 5 * 60_000;

interface Window {
  /** Repeats counted since the window opened (not sent yet). */
  repeats: number;
  latest: Alert | null;
  server: ServerRef | null;
  timer: ReturnType<typeof setTimeout>;
}

export interface DispatcherDeps {
  bus: EventBus;
  log: Logger;
  now: () => number;
  mergeWindowMs?: number;
  /** A server's name, read when a message is sent (see #serverOf). */
  serverName: (id: number) => string;
}

export class AlertDispatcher {
  readonly mergeWindowMs: number;
  #consumers: AlertConsumer[] = [];
  #windows = new Map<string, Window>();
  #unsubscribe: () => void;
  #closed = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.mergeWindowMs = deps.mergeWindowMs ?? MERGE_WINDOW_MS;
    this.#unsubscribe = deps.bus.on("alert", (alert, server) => this.raise(alert, server));
  }

  addConsumer(consumer: AlertConsumer): void {
    this.#consumers.push(consumer);
  }

  /** `server`: the server the alert is about, as the bus says (see #serverOf). */
  raise(alert: Alert, server?: ServerRef): void {
    if (this.#closed) return;
    const about = this.#serverOf(alert, server);
    if (alert.noMerge) return this.#send(alert, 1, about);
    const key = `${about?.id ?? ""}\u0000${alert.kind}\u0000${alert.key ?? ""}`;
    const open = this.#windows.get(key);
    if (open) {
      open.repeats++;
      open.latest = alert;
      return;
    }
    this.#open(key, about);
    this.#send(alert, 1, about);
  }

  /**
   * The server an alert is about. A game event raised on the panel bus without a ServerRef comes from
   * server 1 (the panel's own game, until each server has its bus); the panel's own events are about none.
   */
  #serverOf(alert: Alert, server: ServerRef | undefined): ServerRef | null {
    if (server) return server;
    if (PANEL_EVENTS.includes(alert.kind)) return null;
    const serverName = this.deps.serverName;
    return {
      id: FIRST_SERVER,
      get name() {
        return serverName(FIRST_SERVER);
      },
    };
  }

  /** Drops what is pending for a server that was deleted: no merged message about it follows. */
  forgetServer(id: number): void {
    for (const [key, w] of this.#windows) {
      if (w.server?.id !== id) continue;
      clearTimeout(w.timer);
      this.#windows.delete(key);
    }
  }

  #open(key: string, server: ServerRef | null): void {
    const timer = setTimeout(() => this.#close(key), this.mergeWindowMs);
    this.#windows.set(key, { repeats: 0, latest: null, server, timer });
  }

  #close(key: string): void {
    const w = this.#windows.get(key);
    this.#windows.delete(key);
    if (!w || w.repeats === 0 || !w.latest || this.#closed) return;
    // The first one was sent when the window opened: the merged message counts it too.
    this.#open(key, w.server);
    this.#send(w.latest, w.repeats + 1, w.server);
  }

  #send(alert: Alert, count: number, server: ServerRef | null): void {
    const at = alert.at ?? new Date(this.deps.now()).toISOString();
    // The name as it is now (a server renamed meanwhile is called by its new name).
    const named = server && { id: server.id, name: server.name };
    const merged: DispatchedAlert = {
      ...alert,
      title: named ? `${named.name}: ${alert.title}` : alert.title,
      at,
      url: serverPage(alert.url ?? "/", named?.id ?? null),
      count,
      audience: [alert.kind, ...(alert.also ?? [])],
      server: named,
    };
    if (count > 1) {
      const label = ALERT_CATALOGUE.find((e) => e.event === alert.kind)?.label ?? alert.kind;
      merged.body = `${label} ${count} times in ${spanText(this.mergeWindowMs)}. Latest: ${alert.body}`;
    }
    for (const c of this.#consumers) {
      try {
        c.deliver(merged);
      } catch (e) {
        this.deps.log.error("An alert consumer failed", { kind: alert.kind, error: String(e) });
      }
    }
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const w of this.#windows.values()) clearTimeout(w.timer);
    this.#windows.clear();
  }
}

/**
 * A panel page of a server: the page itself for server 1 and the panel's own alerts (the addresses of a
 * one-server panel), under /servers/{id} for the others ("/backups" of server 2: "/servers/2/backups").
 */
export function serverPage(url: string, server: number | null): string {
  if (server === null || server === FIRST_SERVER) return url;
  return `/servers/${server}${url === "/" ? "" : url}`;
}

/** "5 minutes", "1 minute", "30 seconds". */
export function spanText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    const m = ms / 60_000;
    return `${m} minute${m === 1 ? "" : "s"}`;
  }
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} second${s === 1 ? "" : "s"}`;
}
