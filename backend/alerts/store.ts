// Storage of alert channels. The URL, ntfy token and webhook secret stay in the database (owner-only
// file); channelOf() is the only way a row leaves this module for the API, and it masks them.

import type { Db } from "../store/db.ts";
import { type AlertChannel, type AlertEvent, type ChannelType, isAlertEvent } from "../../shared/alerts.ts";
import { maskUrl } from "./formats.ts";
import { serversColumn, serversOf } from "./alert.ts";

export interface ChannelRow {
  id: number;
  type: ChannelType;
  name: string;
  url: string;
  topic: string | null;
  priority: number | null;
  token: string | null;
  secret: string | null;
  events: string;
  /** JSON list of server ids, or NULL: every server. */
  servers: string | null;
  enabled: number;
  created_at: number;
  last_delivery_at: number | null;
  last_result: string | null;
  last_ok: number | null;
}

export function channelEvents(row: Pick<ChannelRow, "events">): AlertEvent[] {
  return row.events.split(",").filter(isAlertEvent);
}

function shortTopic(topic: string): string {
  // A public ntfy topic is as good as a password: show enough to recognise it.
  return topic.length <= 4 ? "••••" : topic.slice(0, 3) + "••••";
}

export function channelOf(row: ChannelRow): AlertChannel {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    url: maskUrl(row.url),
    events: channelEvents(row),
    servers: serversOf(row.servers),
    enabled: row.enabled === 1,
    ...(row.type === "ntfy"
      ? { topic: shortTopic(row.topic ?? ""), priority: row.priority ?? 3, has_token: !!row.token }
      : {}),
    created_at: new Date(row.created_at).toISOString(),
    last_delivery_at: row.last_delivery_at === null ? null : new Date(row.last_delivery_at).toISOString(),
    last_result: row.last_result,
    last_ok: row.last_ok === null ? null : row.last_ok === 1,
  };
}

export interface NewChannelRow {
  type: ChannelType;
  name: string;
  url: string;
  topic: string | null;
  priority: number | null;
  token: string | null;
  secret: string | null;
  events: AlertEvent[];
  servers: number[] | null;
  enabled: boolean;
}

export class ChannelStore {
  constructor(private readonly db: Db) {}

  list(): ChannelRow[] {
    return this.db.prepare("SELECT * FROM alert_channels ORDER BY id").all() as unknown as ChannelRow[];
  }

  byId(id: number): ChannelRow | undefined {
    return this.db.prepare("SELECT * FROM alert_channels WHERE id = ?").get(id) as ChannelRow | undefined;
  }

  count(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM alert_channels").get() as { n: number }).n;
  }

  insert(c: NewChannelRow, now: number): ChannelRow {
    const r = this.db.prepare(
      `INSERT INTO alert_channels
         (type, name, url, topic, priority, token, secret, events, servers, enabled, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      c.type,
      c.name,
      c.url,
      c.topic,
      c.priority,
      c.token,
      c.secret,
      c.events.join(","),
      serversColumn(c.servers),
      c.enabled ? 1 : 0,
      now,
    );
    return this.byId(Number(r.lastInsertRowid))!;
  }

  update(id: number, change: Partial<Omit<NewChannelRow, "type" | "secret">>): void {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    const set = (col: string, v: string | number | null) => {
      sets.push(`${col} = ?`);
      values.push(v);
    };
    if (change.name !== undefined) set("name", change.name);
    if (change.url !== undefined) set("url", change.url);
    if (change.topic !== undefined) set("topic", change.topic);
    if (change.priority !== undefined) set("priority", change.priority);
    if (change.token !== undefined) set("token", change.token);
    if (change.events !== undefined) set("events", change.events.join(","));
    if (change.servers !== undefined) set("servers", serversColumn(change.servers));
    if (change.enabled !== undefined) set("enabled", change.enabled ? 1 : 0);
    if (sets.length === 0) return;
    this.db.prepare(`UPDATE alert_channels SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
  }

  recordResult(id: number, at: number, ok: boolean, result: string): void {
    this.db.prepare(
      "UPDATE alert_channels SET last_delivery_at = ?, last_ok = ?, last_result = ? WHERE id = ?",
    )
      .run(at, ok ? 1 : 0, result.slice(0, 300), id);
  }

  delete(id: number): boolean {
    return Number(this.db.prepare("DELETE FROM alert_channels WHERE id = ?").run(id).changes) > 0;
  }

  /** Takes a deleted server out of every channel's list (an empty list stays: panel alerts only). */
  forgetServer(id: number): void {
    for (const row of this.list()) {
      const servers = serversOf(row.servers);
      if (!servers?.includes(id)) continue;
      this.update(row.id, { servers: servers.filter((s) => s !== id) });
    }
  }
}
