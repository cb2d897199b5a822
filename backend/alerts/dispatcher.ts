// The one place alerts pass through: it listens to "alert" on the bus, merges repeats and hands each
// alert to every consumer (the Web Push notifier, the channels). Consumers only queue, so raising an
// alert never waits for a network.
//
// Merging: the first alert of a kind (and key) goes out at once and opens a window. Repeats within the
// window are counted, not sent; when the window closes and there were repeats, one message says how many
// ("Crashed 3 times in 5 minutes", the latest one's text following), and a new window opens, so a crash
// loop sends one message per window instead of one per crash.

import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import { ALERT_CATALOGUE } from "../../shared/alerts.ts";
import type { Alert, AlertConsumer, DispatchedAlert } from "./alert.ts";

export const MERGE_WINDOW_MS = 5 * 60_000;

interface Window {
  /** Repeats counted since the window opened (not sent yet). */
  repeats: number;
  latest: Alert | null;
  timer: ReturnType<typeof setTimeout>;
}

export interface DispatcherDeps {
  bus: EventBus;
  log: Logger;
  now: () => number;
  mergeWindowMs?: number;
}

export class AlertDispatcher {
  readonly mergeWindowMs: number;
  #consumers: AlertConsumer[] = [];
  #windows = new Map<string, Window>();
  #unsubscribe: () => void;
  #closed = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.mergeWindowMs = deps.mergeWindowMs ?? MERGE_WINDOW_MS;
    this.#unsubscribe = deps.bus.on("alert", (alert) => this.raise(alert));
  }

  addConsumer(consumer: AlertConsumer): void {
    this.#consumers.push(consumer);
  }

  raise(alert: Alert): void {
    if (this.#closed) return;
    if (alert.noMerge) return this.#send(alert, 1);
    const key = `${alert.kind}\u0000${alert.key ?? ""}`;
    const open = this.#windows.get(key);
    if (open) {
      open.repeats++;
      open.latest = alert;
      return;
    }
    this.#open(key);
    this.#send(alert, 1);
  }

  #open(key: string): void {
    const timer = setTimeout(() => this.#close(key), this.mergeWindowMs);
    this.#windows.set(key, { repeats: 0, latest: null, timer });
  }

  #close(key: string): void {
    const w = this.#windows.get(key);
    this.#windows.delete(key);
    if (!w || w.repeats === 0 || !w.latest || this.#closed) return;
    // The first one was sent when the window opened: the merged message counts it too.
    this.#open(key);
    this.#send(w.latest, w.repeats + 1);
  }

  #send(alert: Alert, count: number): void {
    const at = alert.at ?? new Date(this.deps.now()).toISOString();
    const merged: DispatchedAlert = {
      ...alert,
      at,
      url: alert.url ?? "/",
      count,
      audience: [alert.kind, ...(alert.also ?? [])],
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

/** "5 minutes", "1 minute", "30 seconds". */
export function spanText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    const m = ms / 60_000;
    return `${m} minute${m === 1 ? "" : "s"}`;
  }
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} second${s === 1 ? "" : "s"}`;
}
