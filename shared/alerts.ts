// Alerts: the events the panel tells admins about, and the channels (Discord, Slack, ntfy, a signed
// webhook) that carry them besides Web Push. Used by the backend (dispatcher, channels) and the PWA
// (Notifications page). The event names are fixed for scripts and clients.

export type {
  AlertChannel,
  AlertChannelUpdate,
  ChannelTestResult,
  CreatedAlertChannel,
  NewAlertChannel,
  QuietHours,
} from "./contract/alerts.ts";
export type { ChatLine, OnlineCountSample, PlayerHistoryRow } from "./contract/playerhistory.ts";

export const ALERT_EVENTS = [
  "crashed",
  "stopped",
  "started",
  "start-failed",
  "still-down",
  "player-joined",
  "player-left",
  "factorio-update",
  "mod-updates",
  "backup-failed",
  "task-failed",
  "disk-low",
  "low-ups",
  "hung",
  "memory-high",
  "new-sign-in",
  "user-changed",
  "certificate",
] as const;

export type AlertEvent = typeof ALERT_EVENTS[number];

export function isAlertEvent(value: unknown): value is AlertEvent {
  return typeof value === "string" && (ALERT_EVENTS as readonly string[]).includes(value);
}

/** The catalogue in display order: label, one line of help, and whether channels and devices get it unless told. */
export const ALERT_CATALOGUE: readonly {
  event: AlertEvent;
  label: string;
  help: string;
  byDefault: boolean;
}[] = [
  { event: "crashed", label: "Crashed", help: "The game ended without being asked to.", byDefault: true },
  {
    event: "start-failed",
    label: "Failed to start",
    help: "A start ended before the game was hosting.",
    byDefault: true,
  },
  {
    event: "still-down",
    label: "Still down",
    help: "The game is still down some minutes after a crash.",
    byDefault: true,
  },
  { event: "stopped", label: "Stopped", help: "Someone used Save & Stop or Kill.", byDefault: true },
  {
    event: "started",
    label: "Started",
    help: "The game is up and accepting players (also: running again after a crash).",
    byDefault: false,
  },
  {
    event: "player-joined",
    label: "Player joined",
    help: "Someone joined the game (noisy).",
    byDefault: false,
  },
  { event: "player-left", label: "Player left", help: "Someone left the game (noisy).", byDefault: false },
  {
    event: "factorio-update",
    label: "Factorio update",
    help: "A new Factorio version is available.",
    byDefault: true,
  },
  {
    event: "mod-updates",
    label: "Mod updates",
    help: "Updates are available for installed mods.",
    byDefault: true,
  },
  { event: "backup-failed", label: "Backup failed", help: "A backup could not be made.", byDefault: true },
  { event: "task-failed", label: "Task failed", help: "A scheduled task failed.", byDefault: true },
  {
    event: "disk-low",
    label: "Low disk space",
    help: "Little space is left where saves and backups are kept.",
    byDefault: true,
  },
  {
    event: "low-ups",
    label: "Low UPS",
    help:
      "The game runs below the set updates per second for some samples in a row (and again at full speed).",
    byDefault: true,
  },
  {
    event: "hung",
    label: "Not answering",
    help: "The game's process runs but its console does not answer (hung).",
    byDefault: true,
  },
  {
    event: "memory-high",
    label: "High memory",
    help: "The game uses more memory than the set threshold.",
    byDefault: true,
  },
  {
    event: "new-sign-in",
    label: "New sign-in",
    help: "Someone signed in from a new device or address.",
    byDefault: true,
  },
  {
    event: "user-changed",
    label: "Panel users",
    help: "A panel user was added or removed.",
    byDefault: true,
  },
  {
    event: "certificate",
    label: "HTTPS certificate",
    help: "The panel could not get or renew its HTTPS certificate.",
    byDefault: true,
  },
];

export const DEFAULT_ALERT_EVENTS: readonly AlertEvent[] = ALERT_CATALOGUE.filter((e) => e.byDefault).map((
  e,
) => e.event);

/** Events that reach a push device even in its quiet hours: the game is down or the disk is full. */
export const CRITICAL_EVENTS: readonly AlertEvent[] = [
  "crashed",
  "start-failed",
  "still-down",
  "hung",
  "disk-low",
  "backup-failed",
];

export const CHANNEL_TYPES = ["discord", "slack", "ntfy", "webhook"] as const;
export type ChannelType = typeof CHANNEL_TYPES[number];

export const CHANNEL_TYPE_LABELS: Record<ChannelType, string> = {
  discord: "Discord webhook",
  slack: "Slack-compatible webhook",
  ntfy: "ntfy",
  webhook: "JSON webhook (signed)",
};

/** Header names of the signed webhook. */
export const WEBHOOK_SIGNATURE_HEADER = "X-Factorio-Panel-Signature";
export const WEBHOOK_TIMESTAMP_HEADER = "X-Factorio-Panel-Timestamp";
export const WEBHOOK_EVENT_HEADER = "X-Factorio-Panel-Event";

/** What the signed JSON webhook posts. */
export interface WebhookBody {
  event: AlertEvent | "test";
  title: string;
  body: string;
  details: Record<string, string>;
  at: string;
  /** How many times this happened within the merge window (1 unless merged). */
  count: number;
  /** The server the alert is about; null for the panel's own (sign-ins, users, certificates, disk, updates). */
  server: { id: number; name: string } | null;
}

// ---- Player history ----
