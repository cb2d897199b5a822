// What each channel type posts for an alert: a Discord embed with a colour per event, a Slack-compatible
// message (text plus a coloured attachment, which Mattermost and Rocket.Chat take too), an ntfy JSON
// publish, and the signed JSON webhook. Pure functions: the delivery queue sends what these build.

import { createHmac } from "node:crypto";
import type { AlertEvent } from "../../shared/alerts.ts";
import {
  CRITICAL_EVENTS,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type WebhookBody,
} from "../../shared/alerts.ts";
import type { ChannelRow } from "./store.ts";

/** What a channel is asked to send: an alert after merging, or the test. */
export interface Message {
  kind: AlertEvent | "test";
  title: string;
  body: string;
  details: Record<string, string>;
  at: string;
  count: number;
  /** The server it is about (its name already leads the title); null: the panel's own, or the test. */
  server: { id: number; name: string } | null;
}

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Embed colours: red for the game down, amber for stops and failures, green for up, blue for people. */
export const COLOURS: Record<AlertEvent | "test", number> = {
  crashed: 0xd32f2f,
  "start-failed": 0xc62828,
  "still-down": 0x8e0000,
  stopped: 0xffa000,
  started: 0x43a047,
  "player-joined": 0x1e88e5,
  "player-left": 0x78909c,
  "factorio-update": 0x8e24aa,
  "mod-updates": 0x8e24aa,
  "backup-failed": 0xe64a19,
  "task-failed": 0xf57c00,
  "disk-low": 0xef6c00,
  "low-ups": 0xf9a825,
  hung: 0xb71c1c,
  "memory-high": 0xef6c00,
  "new-sign-in": 0xfdd835,
  "user-changed": 0x3949ab,
  certificate: 0xd84315,
  test: 0x00897b,
};

const USERNAME = "Factorio Panel";

// Discord's limits: title 256, description 4096, 25 fields of name 256 / value 1024.
function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

export function discordRequest(url: string, m: Message): OutgoingRequest {
  const fields = Object.entries(m.details).slice(0, 25).map(([name, value]) => ({
    name: cut(name, 256),
    value: cut(value || "-", 1024),
    inline: value.length < 40,
  }));
  const body = {
    username: USERNAME,
    // Mentions in a crash's log line must not ping anyone.
    allowed_mentions: { parse: [] },
    embeds: [{
      title: cut(m.title, 256),
      description: cut(m.body, 4096),
      color: COLOURS[m.kind],
      timestamp: m.at,
      fields,
      footer: { text: m.kind },
    }],
  };
  return { url, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

export function slackRequest(url: string, m: Message): OutgoingRequest {
  const lines = Object.entries(m.details).map(([k, v]) => `*${k}:* ${v}`);
  const body = {
    text: `*${m.title}*\n${m.body}`,
    attachments: [{
      color: "#" + COLOURS[m.kind].toString(16).padStart(6, "0"),
      fallback: `${m.title}: ${m.body}`,
      title: m.title,
      text: [m.body, ...lines].join("\n"),
      ts: Math.floor(Date.parse(m.at) / 1000),
    }],
  };
  return { url, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

/** ntfy's JSON publishing: POST to the server's root with the topic in the body (no header encoding issues). */
export function ntfyRequest(
  row: Pick<ChannelRow, "url" | "topic" | "priority" | "token">,
  m: Message,
): OutgoingRequest {
  const base = row.url.replace(/\/+$/, "");
  const lines = Object.entries(m.details).map(([k, v]) => `${k}: ${v}`);
  const critical = m.kind !== "test" && CRITICAL_EVENTS.includes(m.kind);
  const priority = Math.max(row.priority ?? 3, critical ? 4 : 1);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (row.token) headers["Authorization"] = `Bearer ${row.token}`;
  const body = {
    topic: row.topic,
    title: m.title,
    message: [m.body, ...lines].join("\n"),
    priority,
    tags: [critical ? "warning" : "factory", m.kind],
  };
  return { url: base + "/", headers, body: JSON.stringify(body) };
}

/** HMAC-SHA256 over "<timestamp>.<body>", hex: what the receiver recomputes with the shared secret. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

export function webhookRequest(url: string, secret: string, m: Message, now = Date.now()): OutgoingRequest {
  const payload: WebhookBody = {
    event: m.kind,
    title: m.title,
    body: m.body,
    details: m.details,
    at: m.at,
    count: m.count,
    server: m.server,
  };
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(now / 1000));
  return {
    url,
    headers: {
      "Content-Type": "application/json",
      [WEBHOOK_EVENT_HEADER]: m.kind,
      [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
      [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(secret, timestamp, body),
    },
    body,
  };
}

export function requestFor(row: ChannelRow, m: Message, now = Date.now()): OutgoingRequest {
  switch (row.type) {
    case "discord":
      return discordRequest(row.url, m);
    case "slack":
      return slackRequest(row.url, m);
    case "ntfy":
      return ntfyRequest(row, m);
    case "webhook":
      return webhookRequest(row.url, row.secret ?? "", m, now);
  }
}

/** The URL with what makes it a capability hidden: the query, and long or last path segments (tokens). */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    const segments = u.pathname.split("/");
    const last = segments.length - 1;
    const masked = segments.map((s, i) => {
      if (s === "") return s;
      if (s.length >= 20 || (i === last && i > 1)) return s.slice(0, 3) + "••••";
      return s;
    });
    return `${u.protocol}//${u.host}${masked.join("/")}${u.search ? "?••••" : ""}`;
  } catch {
    return "••••";
  }
}
