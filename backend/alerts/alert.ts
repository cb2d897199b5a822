// The one shape every alert has on its way to push devices and channels. Any area raises one with
//
//   ctx.bus.emit("alert", { kind: "backup-failed", title: "Backup failed", body: "No space left on device." });
//
// and the dispatcher (dispatcher.ts) merges repeats and hands it to every consumer (the Web Push notifier
// and the channels), each of which sends it to the devices and channels subscribed to `kind`.

import type { AlertEvent } from "../../shared/alerts.ts";

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
  /** Repeats are merged per kind and key (default: the kind alone); e.g. a player's name for joins. */
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
}

export interface AlertConsumer {
  /** Only queues: must never wait for a network. */
  deliver(alert: DispatchedAlert): void;
}
